// `npm run bench -- commands`: 1,000 gateway controllers long-polling their commands at once,
// against the real server process, on the embedded database and on PostgreSQL (and, on
// PostgreSQL, with the polls on a second instance, so each wake-up crosses LISTEN/NOTIFY).
//
// Measured: the latency from a visitor update's 200 answer to the command's arrival at its
// controller (p50, p99, max; also from the moment the update was sent), the server's resident
// memory, TCP connections and CPU while the controllers wait, its database connections, and how
// long SIGTERM takes with every poll waiting.
//
// Settings (environment): BENCH_CONTROLLERS (1000), BENCH_UPDATES (300), BENCH_TARGETS
// (embedded,postgres), BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test; a database is
// created and dropped).
import type { EntityId } from '../src/ids.ts';
import { setMaxListeners } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Agent, request } from 'undici';
import { inParallel } from './load.ts';
import { provisionBenchAccount } from './provision.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { BIN } from '../test/helpers/process.ts';

const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const CONTROLLERS = Number(process.env.BENCH_CONTROLLERS ?? 1000);
const UPDATES = Number(process.env.BENCH_UPDATES ?? 300);
const TARGETS = (process.env.BENCH_TARGETS ?? 'embedded,postgres').split(',');
const SAMPLED = Math.min(CONTROLLERS, 100);

interface ServerProcess {
  child: ChildProcess;
  url: string;
  kill(signal?: NodeJS.Signals): Promise<number | string>;
}

/**
 * The real server process, logging only warnings: with 1,000 controllers, info request logs piped
 * to this process would measure the pipe, not the service (a full pipe blocks the server's writes).
 */
async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const port = await new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(free));
    });
  });
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: {
      ...process.env,
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: process.env.BENCH_SERVER_LOG_LEVEL ?? 'warn',
    },
    stdio: ['ignore', process.env.BENCH_SERVER_LOG_LEVEL ? 'inherit' : 'ignore', 'inherit'],
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}) before serving`);
    const ok = await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error('server did not start in 120 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    url,
    async kill(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

const newAgent = () =>
  new Agent({ connections: null, keepAliveTimeout: 120_000, headersTimeout: 120_000, bodyTimeout: 120_000 });
/**
 * Connections of the PMS calls. Each set of pollers has its own agent, destroyed when it stops:
 * undici opens fresh connections after aborted requests, and a server's graceful close waits for a
 * connection that never sent a request (Node counts it active, until its keep-alive/headers timeout).
 */
let agent = newAgent();

interface Controller {
  facilityId: EntityId;
  token: string;
  after: number;
  visitorId: EntityId | null;
  inFlight: boolean;
}

interface Provisioned {
  facilities: { id: EntityId; gateway: { clientId: string; clientSecret: string } }[];
  pms: { clientId: string; clientSecret: string; apiKey: string; apiSecret: string };
}

async function provision(env: Record<string, string>): Promise<Provisioned> {
  const { app, key, facilities } = await provisionBenchAccount(env, {
    facilities: CONTROLLERS,
    timeZone: 'America/Denver',
  });
  return {
    facilities,
    pms: { clientId: app.clientId, clientSecret: app.clientSecret, apiKey: key.apiKey, apiSecret: key.apiSecret },
  };
}

async function call(
  base: string,
  method: 'GET' | 'POST',
  route: string,
  token: string | null,
  body?: unknown,
  signal?: AbortSignal,
  dispatcher: Agent = agent,
): Promise<{ status: number; body: any }> {
  const response = await request(base + route, {
    method,
    dispatcher,
    signal,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.body.text();
  return { status: response.statusCode, body: text ? JSON.parse(text) : null };
}

async function token(base: string, form: Record<string, string>): Promise<string> {
  const response = await request(`${base}/auth/token`, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  const body = (await response.body.json()) as { access_token: string };
  if (response.statusCode !== 200) throw new Error(`token: ${response.statusCode} ${JSON.stringify(body)}`);
  return body.access_token;
}

/** Linux USER_HZ: /proc/<pid>/stat counts CPU time in these. */
const CLOCK_TICKS = 100;
const rssMiB = (pid: number) =>
  Math.round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024);
const cpuTicks = (pid: number) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime
};

/** ESTABLISHED TCP connections whose local port is the server's. */
function establishedOn(port: number): number {
  let n = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length > 3 && cols[3] === '01' && parseInt(cols[1]!.split(':')[1]!, 16) === port) n++;
    }
  }
  return n;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * (sorted.length - 1)))]!;
const ms = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(1));

class Pollers {
  private readonly abort = new AbortController();
  private readonly agent = newAgent();
  private readonly waiting = new Map<EntityId, (at: number) => void>();
  private loops: Promise<void>[] = [];
  /** From this moment (performance.now()), each controller's first outcome and its time are kept. */
  since = 0;
  readonly firstOutcome = new Map<EntityId, { outcome: string; at: number }>();

  constructor(
    private readonly base: string,
    readonly controllers: Controller[],
  ) {
    setMaxListeners(controllers.length * 2 + 10, this.abort.signal);
  }

  get inFlight(): number {
    return this.controllers.filter((c) => c.inFlight).length;
  }

  start(): void {
    this.loops = this.controllers.map((c) => this.loop(c));
  }

  /** Resolves with the arrival time of the next update command for this visitor. */
  arrivalOf(visitorId: EntityId, timeoutMs = 35_000): Promise<number | null> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(visitorId);
        resolve(null);
      }, timeoutMs);
      this.waiting.set(visitorId, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
  }

  private note(c: Controller, outcome: string, at: number): void {
    if (this.since > 0 && at >= this.since && !this.firstOutcome.has(c.facilityId))
      this.firstOutcome.set(c.facilityId, { outcome, at });
  }

  private async loop(c: Controller): Promise<void> {
    while (!this.abort.signal.aborted) {
      c.inFlight = true;
      try {
        const r = await call(
          this.base,
          'GET',
          `/gateway/v1/commands?after=${c.after}&wait=30&limit=100`,
          c.token,
          undefined,
          this.abort.signal,
          this.agent,
        );
        const at = performance.now();
        c.inFlight = false;
        this.note(
          c,
          r.status === 200 && r.body.commands.length === 0 ? '200 {"commands": []}' : `HTTP ${r.status}`,
          at,
        );
        if (r.status !== 200) throw new Error(`poll ${r.status}`);
        for (const command of r.body.commands) {
          c.after = Math.max(c.after, command.sequence);
          const visitorId = command.payload?.visitor?.id;
          if (command.type === 'visitor.upsert' && command.payload.action === 'update' && this.waiting.has(visitorId)) {
            this.waiting.get(visitorId)!(at);
            this.waiting.delete(visitorId);
          }
        }
      } catch (error) {
        c.inFlight = false;
        if (this.abort.signal.aborted) return;
        if (!/^poll /.test((error as Error).message))
          this.note(c, `error ${(error as { code?: string }).code ?? (error as Error).message}`, performance.now());
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all(this.loops);
    await this.agent.destroy();
  }
}

interface Measure {
  label: string;
  fromAnswer: number[];
  fromSend: number[];
  lost: number;
  idleRss: number;
  waitingRss: number;
  tcp: number;
  idleCpuPercent: number;
  cpuPercent: number;
  dbConnections: string;
}

async function measure(
  label: string,
  writeBase: string,
  pollServer: ServerProcess,
  pmsToken: string,
  controllers: Controller[],
  dbConnections: () => Promise<string>,
): Promise<Measure> {
  const pid = pollServer.child.pid!;
  const idleRss = rssMiB(pid);
  const idle0 = cpuTicks(pid);
  await new Promise((r) => setTimeout(r, 5000));
  const idleCpuPercent = ((cpuTicks(pid) - idle0) / CLOCK_TICKS / 5) * 100;
  const pollers = new Pollers(pollServer.url, controllers);
  pollers.start();
  while (pollers.inFlight < controllers.length) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 3000));
  const cpu0 = cpuTicks(pid);
  await new Promise((r) => setTimeout(r, 5000));
  const cpuPercent = ((cpuTicks(pid) - cpu0) / CLOCK_TICKS / 5) * 100;
  const waitingRss = rssMiB(pid);
  const tcp = establishedOn(Number(new URL(pollServer.url).port));
  const connections = await dbConnections();

  const sampled = controllers.filter((c) => c.visitorId);
  const fromAnswer: number[] = [];
  const fromSend: number[] = [];
  let lost = 0;
  for (let k = 0; k < UPDATES; k++) {
    const c = sampled[k % sampled.length]!;
    const arrival = pollers.arrivalOf(c.visitorId!);
    const sent = performance.now();
    const r = await call(writeBase, 'POST', `/facilities/${c.facilityId}/visitors/${c.visitorId}/update`, pmsToken, {
      firstName: `Bench ${k}`,
    });
    const answered = performance.now();
    if (r.status !== 200) throw new Error(`update ${r.status} ${JSON.stringify(r.body)}`);
    const at = await arrival;
    if (at === null) lost++;
    else {
      fromAnswer.push(at - answered);
      fromSend.push(at - sent);
    }
  }
  await pollers.stop();
  return {
    label,
    fromAnswer: fromAnswer.sort((a, b) => a - b),
    fromSend: fromSend.sort((a, b) => a - b),
    lost,
    idleRss,
    waitingRss,
    tcp,
    idleCpuPercent,
    cpuPercent,
    dbConnections: connections,
  };
}

/** SIGTERM with every controller waiting: how long until the process exits, and how the polls ended. */
async function shutdownWithWaitingPolls(
  server: ServerProcess,
  controllers: Controller[],
): Promise<{ ms: number; answeredMs: number; outcomes: string; exit: number | string; total: number }> {
  const pollers = new Pollers(server.url, controllers);
  pollers.start();
  while (pollers.inFlight < controllers.length) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 2000));
  const started = performance.now();
  pollers.since = started;
  const exit = await server.kill('SIGTERM');
  const took = performance.now() - started;
  await pollers.stop();
  const firsts = [...pollers.firstOutcome.values()];
  const counts = new Map<string, number>();
  for (const f of firsts) counts.set(f.outcome, (counts.get(f.outcome) ?? 0) + 1);
  const outcomes =
    [...counts].map(([outcome, n]) => `${n} × ${outcome}`).join(', ') +
    (firsts.length < controllers.length ? `, ${controllers.length - firsts.length} × no answer` : '');
  return {
    ms: Math.round(took),
    answeredMs: Math.round(Math.max(...firsts.map((f) => f.at)) - started),
    outcomes,
    exit,
    total: controllers.length,
  };
}

async function prepare(
  base: string,
  provisioned: Provisioned,
): Promise<{ pmsToken: string; controllers: Controller[] }> {
  const pmsToken = await token(base, {
    grant_type: 'password',
    client_id: provisioned.pms.clientId,
    client_secret: provisioned.pms.clientSecret,
    username: provisioned.pms.apiKey,
    password: provisioned.pms.apiSecret,
  });
  const controllers = await inParallel(provisioned.facilities, 8, async (f, i) => {
    const gatewayToken = await token(base, {
      grant_type: 'client_credentials',
      client_id: f.gateway.clientId,
      client_secret: f.gateway.clientSecret,
    });
    let visitorId: EntityId | null = null;
    if (i < SAMPLED) {
      const unit = await call(base, 'POST', `/facilities/${f.id}/units`, pmsToken, { unitNumber: 'B-1' });
      const visitor = await call(base, 'POST', `/facilities/${f.id}/visitors`, pmsToken, {
        unitId: unit.body.id,
        accessCode: String(100000 + i),
        firstName: 'Bench',
        lastName: 'Tenant',
        isTenant: true,
      });
      if (visitor.status !== 201) throw new Error(`visitor ${visitor.status} ${JSON.stringify(visitor.body)}`);
      visitorId = visitor.body.visitor.id;
    }
    // Start each controller after its existing commands.
    const first = await call(base, 'GET', '/gateway/v1/commands?after=0&limit=1000', gatewayToken);
    const after = first.body.commands.reduce((n: number, c: { sequence: number }) => Math.max(n, c.sequence), 0);
    return { facilityId: f.id, token: gatewayToken, after, visitorId, inFlight: false };
  });
  return { pmsToken, controllers };
}

function row(m: Measure): string {
  const a = m.fromAnswer;
  const s = m.fromSend;
  return `| ${m.label} | ${ms(pct(a, 0.5))} | ${ms(pct(a, 0.99))} | ${ms(a.at(-1)!)} | ${ms(pct(s, 0.5))} | ${ms(pct(s, 0.99))} | ${m.lost} | ${m.idleRss} → ${m.waitingRss} | ${m.tcp} | ${m.idleCpuPercent.toFixed(1)} → ${m.cpuPercent.toFixed(1)} | ${m.dbConnections} |`;
}

export default async function run(): Promise<void> {
  const rows: string[] = [];
  const shutdowns: string[] = [];
  const serverEnv = { RATE_LIMIT_PER_MINUTE: '10000000' };

  if (TARGETS.includes('embedded')) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-bench-commands-'));
    const env = { DATA_DIR: dataDir, DATABASE_URL: '' };
    const t0 = performance.now();
    const provisioned = await provision(env);
    const server = await startServer({ ...env, ...serverEnv });
    const { pmsToken, controllers } = await prepare(server.url, provisioned);
    console.error(`embedded: ${CONTROLLERS} controllers ready in ${Math.round((performance.now() - t0) / 1000)} s`);
    rows.push(
      row(
        await measure(
          'embedded (PGlite), one instance',
          server.url,
          server,
          pmsToken,
          controllers,
          async () => 'in-process (pool ≤ 20)',
        ),
      ),
    );
    const s = await shutdownWithWaitingPolls(server, controllers);
    const again = await startServer({ ...env, ...serverEnv });
    const idleStart = performance.now();
    const idleExit = await again.kill('SIGTERM');
    shutdowns.push(
      `| embedded | ${s.total} | ${s.outcomes}; the last in ${s.answeredMs} ms | ${s.ms} (${s.exit}) | ${Math.round(performance.now() - idleStart)} (${idleExit}) |`,
    );
    fs.rmSync(dataDir, { recursive: true, force: true });
  }

  if (TARGETS.includes('postgres')) {
    const adminClient = new pg.Client({ connectionString: PG_URL });
    await adminClient.connect();
    const name = `gh_bench_commands_${process.pid}`;
    await adminClient.query(`create database ${name}`);
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-bench-commands-'));
    const env = { DATA_DIR: dataDir, DATABASE_URL: url.toString() };
    const dbConnections = async () => {
      const { rows: r } = await adminClient.query(
        'select count(*)::int as n from pg_stat_activity where datname = $1',
        [name],
      );
      return String(r[0].n);
    };
    try {
      const t0 = performance.now();
      const provisioned = await provision(env);
      const a = await startServer({ ...env, ...serverEnv });
      const { pmsToken, controllers } = await prepare(a.url, provisioned);
      console.error(`postgres: ${CONTROLLERS} controllers ready in ${Math.round((performance.now() - t0) / 1000)} s`);
      rows.push(row(await measure('PostgreSQL 15, one instance', a.url, a, pmsToken, controllers, dbConnections)));
      // A second instance on the same database (and keys): the polls wait there, the updates go to the first.
      const b = await startServer({ ...env, ...serverEnv });
      rows.push(
        row(
          await measure(
            'PostgreSQL 15, polls on instance B, updates on A (LISTEN/NOTIFY)',
            a.url,
            b,
            pmsToken,
            controllers,
            dbConnections,
          ),
        ),
      );
      const s = await shutdownWithWaitingPolls(b, controllers);
      await agent.destroy();
      agent = newAgent();
      const idleStart = performance.now();
      const idleExit = await a.kill('SIGTERM');
      shutdowns.push(
        `| PostgreSQL | ${s.total} | ${s.outcomes}; the last in ${s.answeredMs} ms | ${s.ms} (${s.exit}) | ${Math.round(performance.now() - idleStart)} (${idleExit}) |`,
      );
    } finally {
      await adminClient.query(`drop database if exists ${name} with (force)`);
      await adminClient.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
  await agent.close();

  console.log(`Commands: ${CONTROLLERS} controllers long-polling (wait=30) at once; ${UPDATES} visitor updates, one at a time, spread over ${SAMPLED} of their facilities.
${os.cpus().length} × ${os.cpus()[0]?.model}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}

Latency of the update's command reaching its controller, in ms: from the update's 200 answer
(negative when the command arrives before the answer) and from the moment the update was sent.

| setup | p50 from 200 | p99 from 200 | max from 200 | p50 from send | p99 from send | lost | server RSS idle → ${CONTROLLERS.toLocaleString('en-US')} waiting (MiB) | TCP connections to the server | server CPU idle → while waiting (%) | database connections (all instances) |
|---|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

SIGTERM with every controller waiting:

| database | polls waiting | first answer of each waiting poll after SIGTERM | SIGTERM → exit, ms (exit code) | SIGTERM → exit with no polls waiting, ms (exit code) |
|---|---|---|---|---|
${shutdowns.join('\n')}`);
}

// `npm run bench -- fleet` (issue 12 item 1): one operator's fleet against the same fleet spread out.
//
// 200 facilities of ONE account, each controller posting batches of 3 events in a closed loop
// (the next batch as soon as the last is answered) through real HTTP to the real server process,
// against the same 200 controllers spread over 200 accounts — same run, same server, same database,
// the two alternating (ROUNDS × SECONDS each). Reported: events/s, p50/p99 of a batch, and the ratio
// one-account / spread. Run for each server named (the tree before the change and this one), on
// PostgreSQL and on the embedded database.
//
// Settings (environment):
//   BENCH_DATABASE_URL   postgres://postgres@127.0.0.1:5432/test (a database is created and dropped per run)
//   BENCH_TARGETS        postgres,embedded
//   BENCH_SERVERS        label=path/to/bin/gatehouse,… (default: before=/work/main/bin/gatehouse,after=this tree)
//   BENCH_SECONDS        seconds per measured stretch (5); BENCH_ROUNDS alternations (2)
//   BENCH_CONTROLLERS    controllers per fleet (200)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Agent } from 'undici';
import { BIN, runCli, startServerProcess, type ServerProcess } from '../test/helpers/process.ts';
import { call, inParallel, machine, postEvents } from './load.ts';

const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const TARGETS = (process.env.BENCH_TARGETS ?? 'postgres,embedded').split(',');
const SERVERS = (process.env.BENCH_SERVERS ?? `before=/work/main/bin/gatehouse,after=${BIN}`)
  .split(',')
  .map((entry) => {
    const [label, bin] = entry.split('=');
    return { label: label!, bin: path.resolve(bin!) };
  });
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONTROLLERS = Number(process.env.BENCH_CONTROLLERS ?? 200);
const BATCH = 3;
const TYPES = [18, 18, 18, 15, 33, 34, 10];

interface Stretch {
  events: number;
  seconds: number;
  latencies: number[];
  errors: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

/** Gateway tokens of `CONTROLLERS` facilities: in one account, or one account each. */
async function provisionFleet(server: ServerProcess, operator: string, shape: 'one' | 'spread'): Promise<string[]> {
  const admin = (url: string, body: unknown) => call(`${server.url}${url}`, { method: 'POST', token: operator, body });
  const one = shape === 'one' ? await admin('/admin/accounts', { name: 'One large operator' }) : null;
  return inParallel(Array.from({ length: CONTROLLERS }), 4, async (_, i) => {
    const account = one ?? (await admin('/admin/accounts', { name: `Small operator ${i + 1}` }));
    const facility = await admin('/admin/facilities', {
      accountId: account.id,
      name: `${shape === 'one' ? 'Site' : 'Only site'} ${i + 1}`,
      timeZone: 'America/Denver',
    });
    const gateway = await admin('/admin/gateways', { facilityId: facility.id });
    const token = await call(`${server.url}/auth/token`, {
      method: 'POST',
      form: { grant_type: 'client_credentials', client_id: gateway.clientId, client_secret: gateway.clientSecret },
    });
    return token.access_token as string;
  });
}

/** Every controller posts a batch, waits for the answer, posts the next, for `seconds`. */
async function closedLoop(server: ServerProcess, tokens: string[], tag: string, seconds: number): Promise<Stretch> {
  const dispatcher = new Agent({ connections: tokens.length, pipelining: 1, keepAliveTimeout: 60_000 });
  const latencies: number[] = [];
  let events = 0;
  let errors = 0;
  let sequence = 0;
  const began = performance.now();
  const deadline = began + seconds * 1000;
  await Promise.all(
    tokens.map(async (token, c) => {
      while (performance.now() < deadline) {
        const now = Date.now();
        const batch = Array.from({ length: BATCH }, (_, j) => {
          const n = sequence++;
          return {
            eventId: `${tag}-${c}-${n}`,
            eventType: TYPES[n % TYPES.length],
            occurredAt: new Date(now - (BATCH - j) * 1000).toISOString(),
            deviceId: `kp-${c % 4}`,
            deviceName: 'Front gate keypad',
            details: 'Access granted',
          };
        });
        const sent = performance.now();
        if (await postEvents(server.url, token, dispatcher, batch)) events += BATCH;
        else errors++;
        latencies.push(performance.now() - sent);
      }
    }),
  );
  const elapsed = (performance.now() - began) / 1000;
  await dispatcher.close();
  return { events, seconds: elapsed, latencies, errors };
}

function merge(stretches: Stretch[]) {
  const latencies = stretches.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const events = stretches.reduce((n, s) => n + s.events, 0);
  const seconds = stretches.reduce((n, s) => n + s.seconds, 0);
  return {
    perSecond: events / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    errors: stretches.reduce((n, s) => n + s.errors, 0),
  };
}

/** A fresh database of the target (an embedded data directory, or a database on the server), and its removal. */
export async function benchDatabase(target: string): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-bench-fleet-'));
  if (target === 'embedded')
    return { env: { DATA_DIR: dataDir, DATABASE_URL: '' }, drop: async () => fs.rmSync(dataDir, { recursive: true }) };
  const name = `gh_bench_fleet_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: url.toString() },
    async drop() {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A server of `bin` on a fresh database of the target, with an operator's token, for `work`. */
async function withServer<T>(
  target: string,
  bin: string,
  work: (server: ServerProcess, operator: string) => Promise<T>,
): Promise<T> {
  const db = await benchDatabase(target);
  const env = { ...db.env, RATE_LIMIT_PER_MINUTE: '10000000', TOKEN_TTL_SECONDS: '86400', REDIS_URL: '' };
  try {
    // The command line refuses an empty data directory: make the database first, as an operator does.
    const migrated = await runCli(['migrate'], env, 120_000, bin);
    if (migrated.code !== 0) throw new Error(`gatehouse migrate: ${migrated.stderr}`);
    const created = await runCli(
      ['admin', 'app', 'create', '--name', 'Bench operator', '--operator'],
      env,
      120_000,
      bin,
    );
    if (created.code !== 0) throw new Error(`gatehouse admin app create: ${created.stderr}`);
    const app = JSON.parse(created.stdout);
    const server = await startServerProcess(env, 120_000, { quiet: true, bin });
    try {
      const operator = (
        await call(`${server.url}/auth/token`, {
          method: 'POST',
          form: { grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret },
        })
      ).access_token as string;
      return await work(server, operator);
    } finally {
      await server.kill();
    }
  } finally {
    await db.drop();
  }
}

async function runOne(target: string, server: { label: string; bin: string }, log: (m: string) => void) {
  return withServer(target, server.bin, async (process_, operator) => {
    log(`${target}/${server.label}: provisioning 2 × ${CONTROLLERS} facilities`);
    const one = await provisionFleet(process_, operator, 'one');
    const spread = await provisionFleet(process_, operator, 'spread');
    // Warm-up: connections, plans, the month's partition.
    await closedLoop(process_, one, 'warm-one', 1);
    await closedLoop(process_, spread, 'warm-spread', 1);
    const stretches = { one: [] as Stretch[], spread: [] as Stretch[] };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which goes first, so a drift of the machine weighs on both.
      const order = round % 2 === 0 ? (['one', 'spread'] as const) : (['spread', 'one'] as const);
      for (const shape of order) {
        const stretch = await closedLoop(process_, shape === 'one' ? one : spread, `${shape}-${round}`, SECONDS);
        stretches[shape].push(stretch);
        log(
          `${target}/${server.label}: ${shape} round ${round + 1}: ${Math.round(stretch.events / stretch.seconds)} events/s`,
        );
      }
    }
    return { one: merge(stretches.one), spread: merge(stretches.spread) };
  });
}

/** The one-account fleet alone (the status benchmark's ingest measure): events/s, p50/p99. */
export async function fleetIngest(target: string, server: { label: string; bin: string }, log: (m: string) => void) {
  return withServer(target, server.bin, async (process_, operator) => {
    log(`${target}/${server.label}: provisioning ${CONTROLLERS} facilities of one account`);
    const one = await provisionFleet(process_, operator, 'one');
    await closedLoop(process_, one, 'warm-one', 1);
    const stretches: Stretch[] = [];
    for (let round = 0; round < ROUNDS; round++)
      stretches.push(await closedLoop(process_, one, `one-${round}`, SECONDS));
    return merge(stretches);
  });
}

export default async function run() {
  const log = (message: string) => console.error(`${new Date().toISOString().slice(11, 19)} ${message}`);
  const rows: string[] = [];
  const loads: number[] = [os.loadavg()[0]!];
  for (const target of TARGETS) {
    for (const server of SERVERS) {
      const result = await runOne(target, server, log);
      loads.push(os.loadavg()[0]!);
      const f = (n: number) => Math.round(n).toLocaleString('en-US');
      rows.push(
        `| ${target === 'postgres' ? 'PostgreSQL 15' : 'embedded'} | ${server.label} | ${f(result.one.perSecond)} | ${Math.round(result.one.p50)} / ${Math.round(result.one.p99)} | ${f(result.spread.perSecond)} | ${Math.round(result.spread.p50)} / ${Math.round(result.spread.p99)} | **${(result.one.perSecond / result.spread.perSecond).toFixed(2)}×** | ${(result.spread.p99 / result.one.p99).toFixed(2)}× | ${result.one.errors + result.spread.errors} |`,
      );
    }
  }
  console.log(`Fleet of ${CONTROLLERS} controllers, batches of ${BATCH} events, closed loop over HTTP to the server process; ${ROUNDS} × ${SECONDS} s per fleet, alternating; ${await machine()}; load average (1 min) ${loads.map((l) => l.toFixed(1)).join(' → ')}

| database | server | one account: events/s | p50 / p99 ms | spread over ${CONTROLLERS} accounts: events/s | p50 / p99 ms | events/s one / spread | p99 spread / one | errors |
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Servers: ${SERVERS.map((s) => `${s.label} = ${s.bin}`).join(', ')}.`);
}

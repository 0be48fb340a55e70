// `npm run bench -- stream-fanout` (issue 23): what one event costs to reach 100 live streams of one
// account, each with its own filter (unitIds=7,<1000+i>: every one matches the event, no two are
// the same statement), and how long a stream lives after its account key is revoked — against the
// real server process, loaded from this one, on the embedded database and on PostgreSQL.
//
// Fan-out: the streams open one by one, then events are stored one at a time (the next once every
// stream has the last): per event, the server's CPU and the database's (PostgreSQL: its backends
// for this database), the time from the ingest's answer to the last of the 100 streams receiving
// it, and the tail reads (gatehouse_gateway_event_tail_reads_total, where the code has it).
// Revocation: a stream opened with a key's token, the key revoked over the admin API; the time
// from the revocation call to the final `end` event (or to the give-up at BENCH_END_WAIT_MS).
//
// Settings (environment): BENCH_STREAMS (100), BENCH_EVENTS (60), BENCH_REVOCATIONS (5),
// BENCH_END_WAIT_MS (15000), BENCH_TARGETS (embedded,postgres), BENCH_DATABASE_URL
// (postgres://postgres@127.0.0.1:5432/test; a database is created and dropped).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startServerProcess, type ServerProcess } from '../test/helpers/process.ts';
import { cpuMeter, machine } from './load.ts';
import { provisionBenchAccount } from './provision.ts';

const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const STREAMS = Number(process.env.BENCH_STREAMS ?? 100);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 60);
const REVOCATIONS = Number(process.env.BENCH_REVOCATIONS ?? 5);
const END_WAIT_MS = Number(process.env.BENCH_END_WAIT_MS ?? 15_000);

type Target = 'embedded' | 'postgres';

async function token(base: string, form: Record<string, string>): Promise<string> {
  const response = await fetch(`${base}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  const body = (await response.json()) as { access_token: string };
  if (response.status !== 200) throw new Error(`token: ${response.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

interface Listener {
  request: http.ClientRequest;
  /** Event number (details) → when it arrived. */
  arrived: Map<number, number>;
  /** When the final `end` event arrived. */
  endedAt: number | null;
}

/** A stream; resolves once it is open. */
function listen(url: string, bearer: string): Promise<Listener> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { authorization: `Bearer ${bearer}`, accept: 'text/event-stream' } });
    const listener: Listener = { request, arrived: new Map(), endedAt: null };
    request.once('error', reject);
    request.once('response', (response) => {
      if (response.statusCode !== 200) return reject(new Error(`stream: ${response.statusCode}`));
      response.setEncoding('utf8');
      let buffer = '';
      response.on('data', (chunk: string) => {
        const at = performance.now();
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (frame.includes(': stream open')) resolve(listener);
          if (/^event: end$/m.test(frame)) listener.endedAt = at;
          else {
            const data = /^data: (.*)$/m.exec(frame);
            if (data) listener.arrived.set(Number(JSON.parse(data[1]!).details), at);
          }
        }
      });
      response.on('error', () => {});
    });
  });
}

async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 2));
  }
  return true;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
};

export interface FanoutResult {
  target: Target;
  serverCpuMsPerEvent: number;
  databaseCpuMsPerEvent: number;
  reachAllP50: number;
  reachAllMax: number;
  sharedReadsPerEvent: number | null;
  ownReadsPerEvent: number | null;
  /** Seconds from the revocation call to the end event; null when it did not end within END_WAIT_MS. */
  endAfterRevocation: (number | null)[];
}

async function tailReads(base: string, operator: string): Promise<{ shared: number; own: number } | null> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${operator}` } })).text();
  if (!text.includes('gatehouse_gateway_event_tail_reads_total')) return null;
  const count = (read: string) =>
    Number(
      new RegExp(`^gatehouse_gateway_event_tail_reads_total\\{read="${read}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0,
    );
  return { shared: count('shared'), own: count('own') };
}

export async function benchFanout(target: Target): Promise<FanoutResult> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-bench-fanout-'));
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    RATE_LIMIT_PER_MINUTE: '10000000',
    // The streams of this bench are one credential's: the cap is not what is measured.
    EVENT_STREAMS_PER_CREDENTIAL: '10000',
    LOG_LEVEL: 'warn',
  };
  let dropDatabase = async () => {};
  let backendPids: (() => Promise<number[]>) | null = null;
  let statsClient: pg.Client | null = null;
  if (target === 'postgres') {
    const name = `gh_bench_fanout_${process.pid}`;
    const adminClient = new pg.Client({ connectionString: PG_URL });
    await adminClient.connect();
    await adminClient.query(`drop database if exists ${name} with (force)`);
    await adminClient.query(`create database ${name}`);
    await adminClient.end();
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.toString();
    dropDatabase = async () => {
      await statsClient?.end();
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    };
  }
  let server: ServerProcess | null = null;
  const listeners: Listener[] = [];
  try {
    const seeded = await provisionBenchAccount(env, { facilities: 4, timeZone: 'UTC' }, async (tenancy) => {
      const operator = await tenancy.createApplication({ name: 'Bench operator', operator: true });
      const keys = [];
      for (let i = 0; i < REVOCATIONS; i++) {
        const app = await tenancy.createApplication({ name: `Bench PMS ${i}` });
        const key = await tenancy.createAccountKey({
          accountId: (await tenancy.listAccounts())[0]!.id,
          clientId: app.clientId,
        });
        keys.push({ app, key });
      }
      return { operator, keys };
    });
    server = await startServerProcess(env, 120_000, { quiet: true });
    const base = server.url;
    if (target === 'postgres') {
      statsClient = new pg.Client({ connectionString: env.DATABASE_URL });
      await statsClient.connect();
      const client = statsClient;
      backendPids = async () =>
        (
          await client.query<{ pid: number }>(
            'select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
          )
        ).rows.map((row) => row.pid);
    }
    const passwordGrant = (
      app: { clientId: string; clientSecret: string },
      key: { apiKey: string; apiSecret: string },
    ) =>
      token(base, {
        grant_type: 'password',
        client_id: app.clientId,
        client_secret: app.clientSecret,
        username: key.apiKey,
        password: key.apiSecret,
      });
    const pms = await passwordGrant(seeded.app, seeded.key);
    const operator = await token(base, {
      grant_type: 'client_credentials',
      client_id: seeded.more.operator.clientId,
      client_secret: seeded.more.operator.clientSecret,
    });
    const gateway = await token(base, {
      grant_type: 'client_credentials',
      client_id: seeded.facilities[0]!.gateway.clientId,
      client_secret: seeded.facilities[0]!.gateway.clientSecret,
    });
    const streamUrl = `${base}/gatewayevents/accounts/${seeded.accountId}/stream`;
    for (let i = 0; i < STREAMS; i++) listeners.push(await listen(`${streamUrl}?unitIds=7,${1000 + i}`, pms));

    const store = async (n: number) => {
      const response = await fetch(`${base}/gateway/v1/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          events: [
            {
              eventId: `fanout-${n}`,
              eventType: 18,
              occurredAt: new Date().toISOString(),
              unitId: 7,
              details: String(n),
            },
          ],
        }),
      });
      if (response.status !== 200) throw new Error(`ingest: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
      return performance.now();
    };
    const reachAll = async (n: number) => {
      const answered = await store(n);
      if (!(await until(() => listeners.every((l) => l.arrived.has(n)), 30_000)))
        throw new Error(`event ${n} did not reach every stream`);
      return Math.max(...listeners.map((l) => l.arrived.get(n)!)) - answered;
    };
    // Warm-up: the streams' first reads, the statements' plans.
    for (let n = 0; n < 5; n++) await reachAll(-1 - n);

    const readsBefore = await tailReads(base, operator);
    const meter = cpuMeter(server.child.pid!, backendPids);
    const latencies: number[] = [];
    for (let n = 0; n < EVENTS; n++) latencies.push(await reachAll(n));
    const cpu = await meter();
    const readsAfter = await tailReads(base, operator);
    for (const listener of listeners) listener.request.destroy();
    listeners.length = 0;

    const endAfterRevocation: (number | null)[] = [];
    for (const { app, key } of seeded.more.keys) {
      const stream = await listen(streamUrl, await passwordGrant(app, key));
      listeners.push(stream);
      const called = performance.now();
      const revoked = await fetch(`${base}/admin/account-keys/${key.apiKey}/revoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${operator}`, 'content-type': 'application/json' },
        body: '{}',
      });
      if (revoked.status !== 200) throw new Error(`revoke: ${revoked.status} ${await revoked.text()}`);
      const ended = await until(() => stream.endedAt !== null, END_WAIT_MS);
      endAfterRevocation.push(ended ? (stream.endedAt! - called) / 1000 : null);
      stream.request.destroy();
    }

    return {
      target,
      serverCpuMsPerEvent: cpu.server / EVENTS,
      databaseCpuMsPerEvent: cpu.database / EVENTS,
      reachAllP50: percentile(latencies, 0.5),
      reachAllMax: Math.max(...latencies),
      sharedReadsPerEvent: readsBefore && readsAfter ? (readsAfter.shared - readsBefore.shared) / EVENTS : null,
      ownReadsPerEvent: readsBefore && readsAfter ? (readsAfter.own - readsBefore.own) / EVENTS : null,
      endAfterRevocation,
    };
  } finally {
    for (const listener of listeners) listener.request.destroy();
    await server?.kill('SIGTERM');
    await dropDatabase();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export default async function main(): Promise<void> {
  const targets = (process.env.BENCH_TARGETS ?? 'embedded,postgres').split(',') as Target[];
  console.log(`Machine: ${await machine()}`);
  console.log(
    `\n${STREAMS} streams of one account (one token), each its own filter; ${EVENTS} events one at a time; ` +
      `${REVOCATIONS} revocations\n`,
  );
  console.log(
    '| database | server CPU / event | database CPU / event | reach all 100: p50 | max | tail reads / event (shared, own) | end after revocation (s) |',
  );
  console.log('|---|---|---|---|---|---|---|');
  const ms = (value: number) => (Number.isNaN(value) ? '—' : `${value.toFixed(1)} ms`);
  for (const target of targets) {
    const r = await benchFanout(target);
    const reads =
      r.sharedReadsPerEvent === null
        ? '— (not counted)'
        : `${r.sharedReadsPerEvent.toFixed(2)}, ${r.ownReadsPerEvent!.toFixed(2)}`;
    const ends = r.endAfterRevocation.map((s) => (s === null ? `> ${END_WAIT_MS / 1000}` : s.toFixed(2))).join(', ');
    console.log(
      `| ${r.target} | ${ms(r.serverCpuMsPerEvent)} | ${target === 'postgres' ? ms(r.databaseCpuMsPerEvent) : '(in the server)'} | ${ms(r.reachAllP50)} | ${ms(r.reachAllMax)} | ${reads} | ${ends} |`,
    );
  }
}

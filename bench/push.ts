// `npm run bench -- push` (issue 14): ingest with webhook subscriptions, and how fast the deliveries
// follow the commits.
//
// One server process (bin/gatehouse serve, OUTBOUND_ALLOW_HOSTS=127.0.0.1, the service's default
// push settings: 10 s delivery limit, 2 s sweep, 5 s retry base) on a fresh database of each target.
// One account's fleet (CONTROLLERS facilities, each controller posting batches of BATCH events in a
// closed loop, as `bench -- fleet` does) ingests EVENTS events through POST /gateway/v1/events twice,
// same server, same database, one after the other:
//   A. with no subscription (the baseline of the 0.8× target);
//   B. with 10 subscriptions to gateway.events of that account: 9 healthy receivers on loopback (in
//      this process; each verifies every delivery with standardwebhooks' Webhook.verify, as a real
//      receiver pays, and records when each event first arrived) and 1 dead one — a server that
//      accepts the connection and never answers, so each attempt holds for the 10 s limit.
// Phase B runs second on a table that already holds phase A's events (a bias against B, stated).
// Commit-to-delivery latency: for each event, the time the POST carrying it was answered (commit)
// to the time each healthy receiver got it (request fully read, before verifying); p50/p99/max over
// every (event, healthy receiver) pair; the drain time (last ingest answered → every healthy
// receiver has every event); duplicates counted (at-least-once allows them).
// Baseline of a delivery (DESIGN.md: the physical limit, same run): BASELINE_POSTS plain loopback
// POSTs, one at a time over a kept-alive connection (as a lane sends), of a real delivery body
// captured in phase B, signed here with standardwebhooks and verified by the same receiver.
//
// The SSE part of the measure (commit-to-client with 100 open streams) is bench/stream.ts, run
// after the push results (BENCH_STREAM=0 leaves it out).
//
// Settings (environment):
//   BENCH_DATABASE_URL   postgres://postgres@127.0.0.1:5432/test (a database is created and dropped per run)
//   BENCH_TARGETS        postgres,embedded
//   BENCH_EVENTS         events per phase (100000); BENCH_CONTROLLERS (200); BENCH_BATCH (3)
//   BENCH_BASELINE_POSTS plain POSTs of the delivery baseline (10000)
//   BENCH_DRAIN_SECONDS  how long to wait for the receivers after the last ingest (900)
//   BENCH_TRACE          a file prefix: the first healthy receiver's deliveries (arrival, events, oldest and newest commit)
//   BENCH_SERVER_PROFILE_DIR  the server's main thread is profiled into that directory (cpu-profile.mjs)
import type { EntityId } from '../src/ids.ts';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { Agent, Pool, request } from 'undici';
import { provisionBenchAccount } from './provision.ts';
import { startServerProcess, type ServerProcess } from '../test/helpers/process.ts';
import { benchDatabase } from './fleet.ts';
import { call, cpuMeter, inParallel, machine, postEvents } from './load.ts';

const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const TARGETS = (process.env.BENCH_TARGETS ?? 'postgres,embedded').split(',');
const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const CONTROLLERS = Number(process.env.BENCH_CONTROLLERS ?? 200);
const BATCH = Number(process.env.BENCH_BATCH ?? 3);
const BASELINE_POSTS = Number(process.env.BENCH_BASELINE_POSTS ?? 10_000);
const DRAIN_SECONDS = Number(process.env.BENCH_DRAIN_SECONDS ?? 900);
const PROFILE_DIR = process.env.BENCH_SERVER_PROFILE_DIR;
const TRACE = process.env.BENCH_TRACE;
const HEALTHY = 9;
const TYPES = [18, 18, 18, 15, 33, 34, 10];

const log = (message: string) => console.error(`${new Date().toISOString().slice(11, 19)} ${message}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const f0 = (n: number) => Math.round(n).toLocaleString('en-US');

function quantile(sorted: ArrayLike<number>, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

// ---- Receivers ----

interface HealthyReceiver {
  url: string;
  baselineUrl: string;
  /** Set once subscribed: the subscription's secret. */
  webhook: Webhook | null;
  /** Event key → when it first arrived (performance.now()). */
  arrivals: Map<string, number>;
  duplicates: number;
  deliveries: number;
  /** When each delivery arrived (performance.now()), and its event keys. */
  deliveredAt: number[];
  trace: { at: number; keys: string[] }[];
  rejected: number;
  /** The last delivery as received (the baseline's body). */
  last: { body: string; headers: http.IncomingHttpHeaders } | null;
  close(): Promise<void>;
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A receiver as a client runs it: reads the body, verifies the signature, records the events, answers 204. */
async function startHealthyReceiver(): Promise<HealthyReceiver> {
  const receiver: HealthyReceiver = {
    url: '',
    baselineUrl: '',
    webhook: null,
    arrivals: new Map(),
    duplicates: 0,
    deliveries: 0,
    deliveredAt: [],
    trace: [],
    rejected: 0,
    last: null,
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const body = Buffer.concat(chunks).toString('utf8');
      let payload: { type: string; data: { events?: { details: string }[] } };
      try {
        if (!receiver.webhook) throw new Error('not subscribed yet');
        payload = receiver.webhook.verify(body, req.headers as Record<string, string>) as typeof payload;
      } catch {
        receiver.rejected++;
        res.statusCode = 400;
        res.end();
        return;
      }
      if (req.url === '/baseline') {
        res.statusCode = 204;
        res.end();
        return;
      }
      receiver.deliveries++;
      receiver.deliveredAt.push(at);
      if (TRACE) receiver.trace.push({ at, keys: (payload.data.events ?? []).map((e) => e.details) });
      receiver.last = { body, headers: req.headers };
      for (const event of payload.data.events ?? []) {
        if (receiver.arrivals.has(event.details)) receiver.duplicates++;
        else receiver.arrivals.set(event.details, at);
      }
      res.statusCode = 204;
      res.end();
    });
  });
  const origin = await listen(server);
  receiver.url = `${origin}/hook`;
  receiver.baselineUrl = `${origin}/baseline`;
  receiver.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}

/** A receiver that accepts the connection, reads the request and never answers. */
async function startDeadReceiver(): Promise<{ url: string; attempts: () => number; close(): Promise<void> }> {
  let attempts = 0;
  const held = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      attempts++;
      held.add(res);
      res.on('close', () => held.delete(res));
    });
  });
  server.requestTimeout = 0;
  const origin = await listen(server);
  return {
    url: `${origin}/hook`,
    attempts: () => attempts,
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// ---- Provisioning and calls ----

interface Provisioned {
  accountId: EntityId;
  facilities: { id: EntityId; gateway: { clientId: string; clientSecret: string } }[];
  pms: { clientId: string; clientSecret: string; apiKey: string; apiSecret: string };
  operator: { clientId: string; clientSecret: string };
}

/** One account with CONTROLLERS facilities and their gateways, a PMS and its account key (scope webhooks by default). */
async function provision(env: Record<string, string>): Promise<Provisioned> {
  const { accountId, app, key, facilities, more } = await provisionBenchAccount(
    env,
    { facilities: CONTROLLERS, timeZone: 'America/Denver' },
    (tenancy) => tenancy.createApplication({ name: 'Bench operator', operator: true }),
  );
  return {
    accountId,
    facilities,
    pms: { clientId: app.clientId, clientSecret: app.clientSecret, apiKey: key.apiKey, apiSecret: key.apiSecret },
    operator: { clientId: more.clientId, clientSecret: more.clientSecret },
  };
}

// ---- Ingest ----

interface Ingest {
  events: number;
  seconds: number;
  p50: number;
  p99: number;
  errors: number;
  /** performance.now() of the last answer. */
  lastAt: number;
}

/**
 * The fleet posts `total` events in batches of BATCH, each controller in a closed loop, and records
 * for each event (by its key, also its `details`) when the POST carrying it was answered.
 */
async function ingest(
  server: ServerProcess,
  tokens: string[],
  tag: string,
  total: number,
  commits: Map<string, number> | null,
): Promise<Ingest> {
  const dispatcher = new Agent({ connections: tokens.length, pipelining: 1, keepAliveTimeout: 60_000 });
  const latencies: number[] = [];
  let next = 0;
  let events = 0;
  let errors = 0;
  let lastAt = 0;
  const began = performance.now();
  await Promise.all(
    tokens.map(async (token, c) => {
      while (next < total) {
        const first = next;
        next = Math.min(total, next + BATCH);
        const now = Date.now();
        const keys = Array.from({ length: next - first }, (_, j) => `${tag}-${first + j}`);
        const batch = keys.map((key, j) => ({
          eventId: key,
          eventType: TYPES[(first + j) % TYPES.length],
          occurredAt: new Date(now - (keys.length - j) * 1000).toISOString(),
          deviceId: `kp-${c % 4}`,
          deviceName: 'Front gate keypad',
          details: key,
        }));
        const sent = performance.now();
        const accepted = await postEvents(server.url, token, dispatcher, batch);
        const at = performance.now();
        latencies.push(at - sent);
        if (!accepted) errors++;
        else {
          events += keys.length;
          if (commits) for (const key of keys) commits.set(key, at);
          lastAt = Math.max(lastAt, at);
        }
      }
    }),
  );
  const seconds = (performance.now() - began) / 1000;
  await dispatcher.close();
  latencies.sort((a, b) => a - b);
  return { events, seconds, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), errors, lastAt };
}

// ---- The delivery baseline ----

/** Plain POSTs of a real delivery body, signed here, one at a time over one kept-alive connection. */
async function deliveryBaseline(receiver: HealthyReceiver, secret: string): Promise<{ p50: number; p99: number }> {
  const sample = receiver.last;
  if (!sample) throw new Error('no delivery was received to take its body');
  const target = new URL(receiver.baselineUrl);
  const pool = new Pool(target.origin, { connections: 1, pipelining: 1 });
  const signer = new Webhook(secret);
  const times: number[] = [];
  try {
    for (let i = 0; i < BASELINE_POSTS; i++) {
      const started = performance.now();
      const id = `msg_baseline_${i}`;
      const now = new Date();
      const response = await pool.request({
        path: target.pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signer.sign(id, now, sample.body),
        },
        body: sample.body,
      });
      await response.body.dump();
      if (response.statusCode !== 204) throw new Error(`baseline POST answered ${response.statusCode}`);
      times.push(performance.now() - started);
    }
  } finally {
    await pool.close();
  }
  times.sort((a, b) => a - b);
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
}

// ---- One target ----

interface Result {
  target: string;
  without: Ingest;
  with: Ingest;
  cpu: { without: { server: number; database: number }; with: { server: number; database: number } };
  latency: { pairs: number; missing: number; p50: number; p99: number; max: number; byQuarter: number[] };
  drainSeconds: number | null;
  duplicates: number;
  deliveries: number;
  /** First delivery after B began (s, median over the receivers); the gap between a lane's deliveries (ms, p50) during and after the ingest. */
  lane: { firstAfter: number; gapDuring: number; gapAfter: number };
  rejected: number;
  deadAttempts: number;
  attempts: { delivered: { count: number; seconds: number }; failed: { count: number; seconds: number } };
  baseline: { p50: number; p99: number };
  loads: number[];
}

/** The attempt histogram's count and sum per outcome, from /metrics. */
async function attemptMetrics(server: ServerProcess, operatorToken: string) {
  const text = (await request(`${server.url}/metrics`, { headers: { authorization: `Bearer ${operatorToken}` } }).then(
    (r) => r.body.text(),
  )) as string;
  const pick = (name: string, outcome: string) =>
    Number(new RegExp(`^${name}\\{outcome="${outcome}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return {
    delivered: {
      count: pick('gatehouse_webhook_attempt_seconds_count', 'delivered'),
      seconds: pick('gatehouse_webhook_attempt_seconds_sum', 'delivered'),
    },
    failed: {
      count: pick('gatehouse_webhook_attempt_seconds_count', 'failed'),
      seconds: pick('gatehouse_webhook_attempt_seconds_sum', 'failed'),
    },
  };
}

async function runTarget(target: string): Promise<Result> {
  const loads = [os.loadavg()[0]!];
  const db = await benchDatabase(target);
  const env = {
    ...db.env,
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '10000000',
    TOKEN_TTL_SECONDS: '86400',
    REDIS_URL: '',
  };
  const serverEnv = {
    ...env,
    ...(PROFILE_DIR
      ? {
          BENCH_SERVER_PROFILE_DIR: PROFILE_DIR,
          NODE_OPTIONS: `--import=${new URL('./cpu-profile.mjs', import.meta.url).pathname}`,
        }
      : {}),
  };
  const healthy = await Promise.all(Array.from({ length: HEALTHY }, startHealthyReceiver));
  const dead = await startDeadReceiver();
  let backends: pg.Pool | null = null;
  try {
    log(`${target}: provisioning one account with ${CONTROLLERS} facilities`);
    const provisioned = await provision(env);
    const server = await startServerProcess(serverEnv, 120_000, { quiet: true });
    try {
      const tokens = await inParallel(provisioned.facilities, 8, async (f) => {
        const answer = await call(`${server.url}/auth/token`, {
          method: 'POST',
          form: {
            grant_type: 'client_credentials',
            client_id: f.gateway.clientId,
            client_secret: f.gateway.clientSecret,
          },
        });
        return answer.access_token as string;
      });
      const accountToken = (
        await call(`${server.url}/auth/token`, {
          method: 'POST',
          form: {
            grant_type: 'password',
            client_id: provisioned.pms.clientId,
            client_secret: provisioned.pms.clientSecret,
            username: provisioned.pms.apiKey,
            password: provisioned.pms.apiSecret,
          },
        })
      ).access_token as string;
      const databaseName = db.env.DATABASE_URL ? new URL(db.env.DATABASE_URL).pathname.slice(1) : null;
      if (databaseName) backends = new pg.Pool({ connectionString: PG_URL, max: 1 });
      const backendPids = backends
        ? async () =>
            (
              await backends!.query<{ pid: number }>(
                'select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
                [databaseName],
              )
            ).rows.map((r) => r.pid)
        : null;

      // Warm-up: connections, plans, the month's partition.
      const warm = await ingest(server, tokens, 'warm', Math.min(EVENTS, CONTROLLERS * BATCH * 5), null);
      log(`${target}: warm-up ${warm.events} events, ${f0(warm.events / warm.seconds)}/s`);

      // A. No subscription.
      let meter = cpuMeter(server.child.pid!, backendPids);
      const without = await ingest(server, tokens, 'a', EVENTS, null);
      const cpuWithout = await meter();
      loads.push(os.loadavg()[0]!);
      log(
        `${target}: A, no subscription: ${f0(without.events / without.seconds)} events/s (${without.seconds.toFixed(1)} s)`,
      );

      // B. Ten subscriptions: nine healthy, one dead.
      const secrets: string[] = [];
      for (const receiver of healthy) {
        const created = await call(`${server.url}/webhooks/subscriptions`, {
          method: 'POST',
          token: accountToken,
          body: { url: receiver.url, topics: ['gateway.events'], description: 'bench healthy' },
        });
        receiver.webhook = new Webhook(created.secret);
        secrets.push(created.secret);
      }
      await call(`${server.url}/webhooks/subscriptions`, {
        method: 'POST',
        token: accountToken,
        body: { url: dead.url, topics: ['gateway.events'], description: 'bench dead (never answers)' },
      });
      const commits = new Map<string, number>();
      meter = cpuMeter(server.child.pid!, backendPids);
      const withSubs = await ingest(server, tokens, 'b', EVENTS, commits);
      loads.push(os.loadavg()[0]!);
      log(
        `${target}: B, 10 subscriptions: ${f0(withSubs.events / withSubs.seconds)} events/s (${withSubs.seconds.toFixed(1)} s); waiting for the receivers`,
      );

      // Drain: every healthy receiver has every event of phase B.
      const deadline = performance.now() + DRAIN_SECONDS * 1000;
      let drainedAt: number | null = null;
      let lastLog = performance.now();
      let serverExit: number | string | null = null;
      void server.exited.then((code) => {
        serverExit = code;
      });
      for (;;) {
        if (serverExit !== null) {
          log(
            `${target}: THE SERVER EXITED (${serverExit}) while the receivers were behind; its last output:\n${server.output()}`,
          );
          break;
        }
        const behind = healthy.map((r) => commits.size - r.arrivals.size);
        if (behind.every((n) => n <= 0)) {
          drainedAt = 0;
          for (const r of healthy) for (const at of r.arrivals.values()) if (at > drainedAt) drainedAt = at;
          break;
        }
        if (performance.now() > deadline) break;
        if (performance.now() - lastLog > 15_000) {
          log(`${target}: receivers behind by ${behind.join(', ')} events`);
          lastLog = performance.now();
        }
        await sleep(50);
      }
      const cpuWith = await meter();
      loads.push(os.loadavg()[0]!);
      const drainSeconds = drainedAt === null ? null : (drainedAt - withSubs.lastAt) / 1000;
      log(
        `${target}: drained ${drainSeconds === null ? 'NOT within the limit' : `${drainSeconds.toFixed(1)} s after the last ingest`}`,
      );

      // Latency over every (event, healthy receiver) pair.
      const latencies = new Float64Array(commits.size * healthy.length);
      let pairs = 0;
      let missing = 0;
      for (const receiver of healthy)
        for (const [key, committed] of commits) {
          const arrived = receiver.arrivals.get(key);
          if (arrived === undefined) missing++;
          else latencies[pairs++] = arrived - committed;
        }
      const sorted = latencies.subarray(0, pairs).sort();
      // Does the lag grow during the phase (lanes slower than the ingest) or stay put? p50 per quarter of the commits.
      const firstCommit = withSubs.lastAt - withSubs.seconds * 1000;
      const quarters = [0, 1, 2, 3].map(() => [] as number[]);
      for (const receiver of healthy)
        for (const [key, committed] of commits) {
          const arrived = receiver.arrivals.get(key);
          if (arrived === undefined) continue;
          const q = Math.min(3, Math.max(0, Math.floor(((committed - firstCommit) / (withSubs.seconds * 1000)) * 4)));
          quarters[q]!.push(arrived - committed);
        }
      // A lane's pace: the gap between its deliveries while the ingest runs, and after it (draining alone).
      const firstAfter: number[] = [];
      const during: number[] = [];
      const afterIngest: number[] = [];
      for (const receiver of healthy) {
        firstAfter.push(((receiver.deliveredAt[0] ?? Number.NaN) - firstCommit) / 1000);
        for (let i = 1; i < receiver.deliveredAt.length; i++)
          (receiver.deliveredAt[i]! <= withSubs.lastAt ? during : afterIngest).push(
            receiver.deliveredAt[i]! - receiver.deliveredAt[i - 1]!,
          );
      }
      for (const list of [firstAfter, during, afterIngest]) list.sort((a, b) => a - b);
      const lane = {
        firstAfter: quantile(firstAfter, 0.5),
        gapDuring: during.length ? quantile(during, 0.5) : Number.NaN,
        gapAfter: afterIngest.length ? quantile(afterIngest, 0.5) : Number.NaN,
      };
      if (TRACE) {
        // One line per delivery of the first healthy receiver: arrival, events, oldest and newest commit (s from B's start).
        const lines = healthy[0]!.trace.map(({ at, keys }) => {
          const times = keys.map((k) => commits.get(k) ?? Number.NaN);
          const t = (x: number) => ((x - firstCommit) / 1000).toFixed(2);
          return `${t(at)} ${keys.length} ${t(Math.min(...times))} ${t(Math.max(...times))}`;
        });
        fs.writeFileSync(`${TRACE}.${target}.txt`, `${lines.join('\n')}\n`);
      }
      const byQuarter = quarters.map((values) =>
        values.length
          ? quantile(
              values.sort((a, b) => a - b),
              0.5,
            )
          : Number.NaN,
      );
      const operatorToken = (
        await call(`${server.url}/auth/token`, {
          method: 'POST',
          form: {
            grant_type: 'client_credentials',
            client_id: provisioned.operator.clientId,
            client_secret: provisioned.operator.clientSecret,
          },
        })
      ).access_token as string;
      const attempts = await attemptMetrics(server, operatorToken);

      // The delivery baseline, server idle but for the dead lane's retries.
      const baseline = await deliveryBaseline(healthy[0]!, secrets[0]!);
      loads.push(os.loadavg()[0]!);
      log(`${target}: baseline POST + verify p50 ${baseline.p50.toFixed(2)} ms, p99 ${baseline.p99.toFixed(2)} ms`);
      return {
        target,
        without,
        with: withSubs,
        cpu: { without: cpuWithout, with: cpuWith },
        latency: {
          pairs,
          missing,
          p50: quantile(sorted, 0.5),
          p99: quantile(sorted, 0.99),
          max: pairs > 0 ? sorted[pairs - 1]! : Number.NaN,
          byQuarter,
        },
        drainSeconds,
        duplicates: healthy.reduce((n, r) => n + r.duplicates, 0),
        deliveries: healthy.reduce((n, r) => n + r.deliveries, 0),
        lane,
        rejected: healthy.reduce((n, r) => n + r.rejected, 0),
        deadAttempts: dead.attempts(),
        attempts,
        baseline,
        loads,
      };
    } finally {
      await server.kill();
    }
  } finally {
    await backends?.end();
    for (const r of healthy) await r.close();
    await dead.close();
    await db.drop();
  }
}

function render(results: Result[], machineLine: string): string {
  const ms = (n: number) => (n < 10 ? n.toFixed(2) : f0(n));
  const rows = results.map((r) => {
    const a = r.without.events / r.without.seconds;
    const b = r.with.events / r.with.seconds;
    const ratio = b / a;
    const db = r.target === 'postgres' ? 'PostgreSQL 15' : 'embedded';
    return {
      ingest: `| ${db} | ${f0(a)} (${r.without.seconds.toFixed(1)} s; batch p50/p99 ${f0(r.without.p50)} / ${f0(r.without.p99)} ms) | ${f0(b)} (${r.with.seconds.toFixed(1)} s; ${f0(r.with.p50)} / ${f0(r.with.p99)} ms) | **${ratio.toFixed(2)}×** ${ratio >= 0.8 ? 'met' : '**not met**'} | ${f0((r.cpu.without.server / r.without.events) * 1000)} / ${f0((r.cpu.with.server / r.with.events) * 1000)} | ${r.target === 'postgres' ? `${f0((r.cpu.without.database / r.without.events) * 1000)} / ${f0((r.cpu.with.database / r.with.events) * 1000)}` : 'in the server'} | ${r.without.errors + r.with.errors} |`,
      delivery: `| ${db} | ${ms(r.latency.p50)} / ${ms(r.latency.p99)} / ${ms(r.latency.max)} | ${r.latency.p99 < 2000 && r.latency.missing === 0 ? 'met' : '**not met**'} | ${r.drainSeconds === null ? `not drained in ${DRAIN_SECONDS} s` : r.drainSeconds.toFixed(1)} | ${ms(r.baseline.p50)} / ${ms(r.baseline.p99)} | ${f0(r.latency.pairs)} (${f0(r.latency.missing)} missing) | ${r.duplicates} | ${f0(r.deliveries)} (${(r.latency.pairs / Math.max(1, r.deliveries)).toFixed(1)} events each) | ${r.attempts.delivered.count > 0 ? ms((r.attempts.delivered.seconds / r.attempts.delivered.count) * 1000) : '–'} | ${r.deadAttempts} (${r.attempts.failed.count} failed attempts counted) | ${r.rejected} | ${r.latency.byQuarter.map(ms).join(' / ')} | ${r.lane.firstAfter.toFixed(1)}; ${ms(r.lane.gapDuring)} / ${ms(r.lane.gapAfter)} |`,
      loads: `${db}: ${r.loads.map((l) => l.toFixed(1)).join(' → ')}`,
    };
  });
  return `Push (issue 14): ${f0(EVENTS)} events per phase, one account, ${CONTROLLERS} controllers × batches of ${BATCH} in a closed loop over HTTP to the server process; phase A without subscriptions, then phase B with 10 subscriptions to gateway.events (9 healthy receivers verifying with standardwebhooks, 1 that never answers), same server and database; ${machineLine}

| database | ingest A, no subscription: events/s | ingest B, 10 subscriptions: events/s | B / A (target ≥ 0.8×) | server CPU µs per event A / B | database CPU µs per event A / B | errors |
|---|---|---|---|---|---|---|
${rows.map((r) => r.ingest).join('\n')}

| database | commit → delivery p50 / p99 / max, ms (9 healthy receivers) | p99 < 2 s | drain after last ingest, s | baseline: plain POST + sign + verify, p50 / p99 ms | (event, receiver) pairs | duplicates | deliveries received | server-side attempt mean, ms | dead receiver: attempts | rejected signatures | p50 by quarter of B's commits, ms | a lane: first delivery after B began, s; gap between its deliveries p50 during / after the ingest, ms |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
${rows.map((r) => r.delivery).join('\n')}

Load average (1 min) start → after A → after B's ingest → drained → after the baseline: ${rows.map((r) => r.loads).join('; ')}.`;
}

export default async function run(): Promise<void> {
  const machineLine = await machine();
  const results: Result[] = [];
  for (const target of TARGETS) results.push(await runTarget(target));
  console.log(render(results, machineLine));
  if (process.env.BENCH_STREAM !== '0') {
    console.log('\nSSE, commit → client with 100 open streams (bench/stream.ts):');
    await (await import('./stream.ts')).default();
  }
}

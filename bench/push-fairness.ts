// `npm run bench -- push-fairness` (issue 23, item 2): one account's webhook latency while another
// account's 100 receivers stall.
//
// One server process (bin/gatehouse serve, OUTBOUND_ALLOW_HOSTS=127.0.0.1, the default push settings:
// 32 healthy lanes and 8 failing ones at once, 4 per owner, a receiver must connect within 2 s and
// start answering within 5 s, 10 s for the whole attempt) on a fresh database of each target. Two
// accounts, one facility each. Account A has SUBSCRIPTIONS_A subscriptions to gateway.events of a
// healthy receiver on loopback (in this process). Its controller posts EVENTS events, one per POST,
// one every INTERVAL_MS; for each event, the time its POST was answered (commit) to the time each of
// A's subscriptions delivered it (the receiver has read the request). Twice, same server:
//   1. alone (the baseline);
//   2. beside account B, which has made 100 subscriptions (its whole quota) to a receiver that accepts
//      the connection and never answers, and whose controller posted one event just before: each of
//      B's lanes has a delivery that stalls until the first-byte deadline, then again at each retry.
// Printed: A's p50/p99/max per phase, and the most of B's requests the stalling receiver held at once.
//
// Settings (environment):
//   BENCH_DATABASE_URL   postgres://postgres@127.0.0.1:5432/test (a database is created and dropped per run)
//   BENCH_TARGETS        postgres,embedded
//   BENCH_EVENTS         A's events per phase (300); BENCH_INTERVAL_MS (100); BENCH_SUBSCRIPTIONS_A (3)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { Agent } from 'undici';
import { startServerProcess, type ServerProcess } from '../test/helpers/process.ts';
import { benchDatabase } from './fleet.ts';
import { call, machine, postEvents } from './load.ts';
import { provisionBenchAccount } from './provision.ts';

const TARGETS = (process.env.BENCH_TARGETS ?? 'postgres,embedded').split(',');
const EVENTS = Number(process.env.BENCH_EVENTS ?? 300);
const INTERVAL_MS = Number(process.env.BENCH_INTERVAL_MS ?? 100);
const SUBSCRIPTIONS_A = Number(process.env.BENCH_SUBSCRIPTIONS_A ?? 3);
const STALLED = 100;

const log = (message: string) => console.error(`${new Date().toISOString().slice(11, 19)} ${message}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Records when each (subscription, event key) first arrived; the subscription is named by the URL's query. */
async function startHealthyReceiver() {
  const arrivals = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const sub = new URL(req.url ?? '/', 'http://x').searchParams.get('s');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      for (const e of body.data?.events ?? []) {
        const key = `${sub}/${e.details}`;
        if (!arrivals.has(key)) arrivals.set(key, at);
      }
      res.end('ok');
    });
  });
  const origin = await listen(server);
  return {
    url: `${origin}/hook`,
    arrivals,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Accepts and never answers; counts the requests it holds. */
async function startStallingReceiver() {
  const held = new Set<http.ServerResponse>();
  let most = 0;
  let attempts = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      attempts++;
      held.add(res);
      most = Math.max(most, held.size);
      res.on('close', () => held.delete(res));
    });
  });
  server.requestTimeout = 0;
  const origin = await listen(server);
  return {
    url: `${origin}/hook`,
    stats: () => ({ most, attempts }),
    resetMost: () => {
      most = held.size;
    },
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function accountTokens(server: ServerProcess, provisioned: Awaited<ReturnType<typeof provision>>) {
  const gateway = await call(`${server.url}/auth/token`, {
    method: 'POST',
    form: {
      grant_type: 'client_credentials',
      client_id: provisioned.facilities[0]!.gateway.clientId,
      client_secret: provisioned.facilities[0]!.gateway.clientSecret,
    },
  });
  const account = await call(`${server.url}/auth/token`, {
    method: 'POST',
    form: {
      grant_type: 'password',
      client_id: provisioned.app.clientId,
      client_secret: provisioned.app.clientSecret,
      username: provisioned.key.apiKey,
      password: provisioned.key.apiSecret,
    },
  });
  return { gateway: gateway.access_token as string, account: account.access_token as string };
}

const provision = (env: Record<string, string>) =>
  provisionBenchAccount(env, { facilities: 1, timeZone: 'America/Denver' });

interface Phase {
  p50: number;
  p99: number;
  max: number;
  missing: number;
}

/** A's events, one per POST every INTERVAL_MS; commit → arrival at each of A's subscriptions. */
async function phaseOfA(
  server: ServerProcess,
  token: string,
  receiver: Awaited<ReturnType<typeof startHealthyReceiver>>,
  tag: string,
): Promise<Phase> {
  const dispatcher = new Agent({ connections: 4, keepAliveTimeout: 60_000 });
  const commits = new Map<string, number>();
  const posts: Promise<void>[] = [];
  for (let i = 0; i < EVENTS; i++) {
    const key = `${tag}-${i}`;
    posts.push(
      postEvents(server.url, token, dispatcher, [
        { eventId: key, eventType: 18, occurredAt: new Date().toISOString(), deviceId: 'kp-1', details: key },
      ]).then((ok) => {
        if (ok) commits.set(key, performance.now());
      }),
    );
    await sleep(INTERVAL_MS);
  }
  await Promise.all(posts);
  await dispatcher.close();
  // Everything arrives, or 60 s pass.
  const wanted = [...commits.keys()].flatMap((key) => Array.from({ length: SUBSCRIPTIONS_A }, (_, s) => `${s}/${key}`));
  const until = performance.now() + 60_000;
  while (wanted.some((k) => !receiver.arrivals.has(k)) && performance.now() < until) await sleep(100);
  const latencies: number[] = [];
  let missing = 0;
  for (const k of wanted) {
    const at = receiver.arrivals.get(k);
    if (at === undefined) missing++;
    else latencies.push(at - commits.get(k.slice(k.indexOf('/') + 1))!);
  }
  latencies.sort((x, y) => x - y);
  return {
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    max: latencies[latencies.length - 1] ?? Number.NaN,
    missing,
  };
}

async function runTarget(target: string) {
  const db = await benchDatabase(target);
  const env = {
    ...db.env,
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
    RATE_LIMIT_PER_MINUTE: '10000000',
    TOKEN_TTL_SECONDS: '86400',
    REDIS_URL: '',
  };
  const healthy = await startHealthyReceiver();
  const stalling = await startStallingReceiver();
  const loads = [os.loadavg()[0]!];
  try {
    const a = await provision(env);
    const b = await provision(env);
    const server = await startServerProcess(env, 120_000, { quiet: true });
    try {
      const tokensA = await accountTokens(server, a);
      const tokensB = await accountTokens(server, b);
      for (let s = 0; s < SUBSCRIPTIONS_A; s++)
        await call(`${server.url}/webhooks/subscriptions`, {
          method: 'POST',
          token: tokensA.account,
          body: { url: `${healthy.url}?s=${s}`, topics: ['gateway.events'] },
        });
      // Warm-up: connections, plans.
      await phaseOfA(server, tokensA.gateway, healthy, 'warm');
      log(`${target}: 1. A alone`);
      const alone = await phaseOfA(server, tokensA.gateway, healthy, 'alone');
      loads.push(os.loadavg()[0]!);

      log(`${target}: 2. B makes ${STALLED} subscriptions to a receiver that never answers, and posts one event`);
      for (let s = 0; s < STALLED; s++)
        await call(`${server.url}/webhooks/subscriptions`, {
          method: 'POST',
          token: tokensB.account,
          body: { url: `${stalling.url}?s=${s}`, topics: ['gateway.events'] },
        });
      const agent = new Agent();
      await postEvents(server.url, tokensB.gateway, agent, [
        { eventId: 'b-1', eventType: 18, occurredAt: new Date().toISOString(), deviceId: 'kp-1', details: 'b-1' },
      ]);
      await agent.close();
      while (stalling.stats().attempts === 0) await sleep(20);
      stalling.resetMost();
      const beside = await phaseOfA(server, tokensA.gateway, healthy, 'beside');
      loads.push(os.loadavg()[0]!);
      return { target, alone, beside, stalled: stalling.stats(), loads };
    } finally {
      await stalling.close();
      await server.kill();
    }
  } finally {
    await healthy.close();
    await db.drop();
  }
}

export default async function run() {
  const results = [];
  for (const target of TARGETS) results.push(await runTarget(target));
  const ms = (n: number) => `${Math.round(n).toLocaleString('en-US')} ms`;
  console.log(
    `\n${await machine()}; ${EVENTS} events of A per phase, one every ${INTERVAL_MS} ms, ${SUBSCRIPTIONS_A} subscriptions of A\n`,
  );
  console.log(
    '| target | phase | A: p50 | A: p99 | A: max | A: missing | B: requests held at once (most) / attempts | load avg |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    console.log(
      `| ${r.target} | A alone | ${ms(r.alone.p50)} | ${ms(r.alone.p99)} | ${ms(r.alone.max)} | ${r.alone.missing} | — | ${r.loads[1]!.toFixed(1)} |`,
    );
    console.log(
      `| ${r.target} | beside B's ${STALLED} stalled | ${ms(r.beside.p50)} | ${ms(r.beside.p99)} | ${ms(r.beside.max)} | ${r.beside.missing} | ${r.stalled.most} / ${r.stalled.attempts} | ${r.loads[2]!.toFixed(1)} |`,
    );
  }
}

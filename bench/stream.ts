// `npm run bench -- stream`: 100 live streams open on one account (GET …/accounts/{id}/stream)
// while controllers ingest at a steady rate, against the real server process, on the embedded
// database and on PostgreSQL. Measured: commit-to-client latency — from the moment the ingest POST
// answered (the batch is committed) to the moment each stream received the event — p50, p99, max,
// and that every stream received every event exactly once.
//
// `benchStream(options)` runs one measurement and returns its numbers (the push benchmark calls
// it); the default export runs every target and prints a Markdown table.
//
// Settings (environment): BENCH_STREAMS (100), BENCH_RATE (batches per second, 20),
// BENCH_SECONDS (20), BENCH_TARGETS (embedded,postgres), BENCH_DATABASE_URL
// (postgres://postgres@127.0.0.1:5432/test; a database is created and dropped), BENCH_DEBUG (print
// which events a stream missed, if any).
import type { EntityId } from '../src/ids.ts';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { provisionBenchAccount } from './provision.ts';
import { startServerProcess, type ServerProcess } from '../test/helpers/process.ts';
import { machine } from './load.ts';

export interface StreamBenchOptions {
  target: 'embedded' | 'postgres';
  /** Streams open on the account. */
  streams?: number;
  /** Ingest batches per second (one event each), spread over the account's facilities. */
  rate?: number;
  seconds?: number;
  facilities?: number;
  databaseUrl?: string;
}

export interface StreamBenchResult {
  target: string;
  streams: number;
  events: number;
  /** Events received, summed over the streams (streams × events when none is missing). */
  deliveries: number;
  missing: number;
  repeated: number;
  /** Commit-to-client latency, milliseconds. */
  p50: number;
  p99: number;
  max: number;
  /** Ingest answers, milliseconds. */
  ingestP50: number;
}

const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function provision(env: Record<string, string>, facilities: number) {
  const seeded = await provisionBenchAccount(env, { facilities, timeZone: 'UTC' });
  return { ...seeded, accountId: seeded.accountId as EntityId, gateways: seeded.facilities.map((f) => f.gateway) };
}

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

/** A stream that records, per event number (its `details`), when it arrived. */
function listen(url: string, bearer: string, onEvent: (n: number, at: number) => void): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { authorization: `Bearer ${bearer}`, accept: 'text/event-stream' } });
    request.once('error', reject);
    request.once('response', (response) => {
      if (response.statusCode !== 200) return reject(new Error(`stream: ${response.statusCode}`));
      response.setEncoding('utf8');
      let buffer = '';
      let opened = false;
      response.on('data', (chunk: string) => {
        const at = performance.now();
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (!opened && frame.includes(': stream open')) {
            opened = true;
            resolve(request);
          }
          const data = /^data: (.*)$/m.exec(frame);
          if (data) onEvent(Number(JSON.parse(data[1]!).details), at);
        }
      });
      response.on('error', () => {});
    });
  });
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

/** One measurement: a fresh database, the server process, the streams, a steady ingest. */
export async function benchStream(options: StreamBenchOptions): Promise<StreamBenchResult> {
  const streams = options.streams ?? 100;
  const rate = options.rate ?? 20;
  const seconds = options.seconds ?? 20;
  const facilities = options.facilities ?? 4;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-bench-stream-'));
  const env: Record<string, string> = { DATA_DIR: dataDir, DATABASE_URL: '', RATE_LIMIT_PER_MINUTE: '10000000' };
  let dropDatabase = async () => {};
  if (options.target === 'postgres') {
    const baseUrl = options.databaseUrl ?? PG_URL;
    const name = `gh_bench_stream_${process.pid}`;
    const adminClient = new pg.Client({ connectionString: baseUrl });
    await adminClient.connect();
    await adminClient.query(`drop database if exists ${name} with (force)`);
    await adminClient.query(`create database ${name}`);
    await adminClient.end();
    const url = new URL(baseUrl);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.toString();
    dropDatabase = async () => {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    };
  }
  let server: ServerProcess | null = null;
  const requests: http.ClientRequest[] = [];
  try {
    const seeded = await provision(env, facilities);
    server = await startServerProcess(env, 120_000, { quiet: true });
    const base = server.url;
    const pmsToken = await token(base, {
      grant_type: 'password',
      client_id: seeded.app.clientId,
      client_secret: seeded.app.clientSecret,
      username: seeded.key.apiKey,
      password: seeded.key.apiSecret,
    });
    const gatewayTokens = await Promise.all(
      seeded.gateways.map((g) =>
        token(base, { grant_type: 'client_credentials', client_id: g.clientId, client_secret: g.clientSecret }),
      ),
    );

    const total = rate * seconds;
    // arrivals[s][n]: when stream s received event n (or undefined); repeats counted apart.
    const arrivals = Array.from({ length: streams }, () => new Array<number | undefined>(total));
    let repeated = 0;
    let received = 0;
    const url = `${base}/gatewayevents/accounts/${seeded.accountId}/stream`;
    for (let s = 0; s < streams; s++) {
      requests.push(
        await listen(url, pmsToken, (n, at) => {
          if (arrivals[s]![n] !== undefined) repeated++;
          else {
            arrivals[s]![n] = at;
            received++;
          }
        }),
      );
    }

    const answered = new Array<number>(total);
    const ingestMs: number[] = [];
    const started = performance.now();
    const posts: Promise<void>[] = [];
    for (let n = 0; n < total; n++) {
      const due = started + (n * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const sent = performance.now();
      posts.push(
        fetch(`${base}/gateway/v1/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${gatewayTokens[n % facilities]}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            events: [
              {
                eventId: `bench-${n}`,
                eventType: 18,
                occurredAt: new Date().toISOString(),
                deviceId: 'kp-1',
                details: String(n),
              },
            ],
          }),
        }).then(async (response) => {
          answered[n] = performance.now();
          ingestMs.push(answered[n]! - sent);
          if (response.status !== 200) throw new Error(`ingest: ${response.status} ${await response.text()}`);
          await response.arrayBuffer();
        }),
      );
    }
    await Promise.all(posts);
    // Let the last events arrive (a stream's safety poll is 5 s: wait past it).
    const deadline = performance.now() + 10_000;
    while (received < streams * total && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));

    const latencies: number[] = [];
    let missing = 0;
    for (const stream of arrivals) {
      for (let n = 0; n < total; n++) {
        const at = stream[n];
        if (at === undefined) missing++;
        else latencies.push(at - answered[n]!);
      }
    }
    if (missing > 0 && process.env.BENCH_DEBUG) {
      const byEvent = new Map<number, number>();
      arrivals.forEach((stream) => {
        for (let n = 0; n < total; n++) if (stream[n] === undefined) byEvent.set(n, (byEvent.get(n) ?? 0) + 1);
      });
      console.error('missing by event', [...byEvent.entries()].slice(0, 20));
    }
    latencies.sort((a, b) => a - b);
    ingestMs.sort((a, b) => a - b);
    return {
      target: options.target,
      streams,
      events: total,
      deliveries: latencies.length,
      missing,
      repeated,
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      max: latencies.at(-1) ?? Number.NaN,
      ingestP50: percentile(ingestMs, 0.5),
    };
  } finally {
    for (const request of requests) request.destroy();
    await server?.kill('SIGTERM');
    await dropDatabase();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export default async function main(): Promise<void> {
  const targets = (process.env.BENCH_TARGETS ?? 'embedded,postgres').split(',') as StreamBenchOptions['target'][];
  const options = {
    streams: Number(process.env.BENCH_STREAMS ?? 100),
    rate: Number(process.env.BENCH_RATE ?? 20),
    seconds: Number(process.env.BENCH_SECONDS ?? 20),
  };
  console.log(`Machine: ${await machine()}`);
  console.log(
    `\n${options.streams} streams on one account, ${options.rate} ingest batches/s (1 event each, 4 facilities), ${options.seconds} s\n`,
  );
  console.log('| database | events | deliveries | missing | repeated | p50 | p99 | max | ingest p50 |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  for (const target of targets) {
    const r = await benchStream({ target, ...options });
    console.log(
      `| ${r.target} | ${r.events} | ${r.deliveries} | ${r.missing} | ${r.repeated} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.max)} | ${ms(r.ingestP50)} |`,
    );
  }
}

// `npm run bench -- fleet-scale` (issue 25): an operator's fleet on one machine — N facilities
// onboarded over the admin API, every controller reconnecting at once after an outage, each holding
// its long poll and reporting a small batch every ~10 s, the PMS changing units and visitors
// across the fleet, 5 webhook receivers and 100 live streams on the account, one facility
// uploading from 4 threads, the status list and /health sampled. The service is a real server
// process; the load comes from processes of its own (bench/fleet-scale/), so that the server's
// CPU, read from /proc, is its own. Prints every figure beside issue 25's target, the CPU of each
// phase and the service's CPU per request kind. The phases: bench/fleet-scale/scenario.ts.
//
// Settings (environment):
//   BENCH_DATABASE_URL   postgres://postgres@127.0.0.1:5432/test (a database is created and dropped per run)
//   BENCH_TARGETS        postgres (or postgres,embedded; embedded)
//   BENCH_FACILITIES     10000
//   BENCH_WORKERS        controller processes (2)
//   BENCH_SECONDS        seconds of the batches, webhooks and full phases (60); BENCH_POLL_SECONDS (45)
//   BENCH_BATCH          events per batch (3); BENCH_BATCH_INTERVAL_MS (10000); BENCH_POLL_WAIT (30 s)
//   BENCH_STREAMS        live streams (100); BENCH_STREAM_SAMPLE (one event in 10 timed)
//   BENCH_RECEIVERS      webhook receivers (5)
//   BENCH_PMS_PER_SECOND PMS changes a second (20); BENCH_STATUS_EVERY_MS (5000); BENCH_HEALTH_EVERY_MS (100)
//   BENCH_UPLOAD         senders×batches×events of the one facility's upload (4x10x200)
//   BENCH_FLOOD_ROUNDS   (3) of BENCH_FLOOD_REQUESTS (400) made-up client ids
//   BENCH_STORM_SECONDS  how long a controller keeps asking for its token (600)
//   BENCH_DRAIN_SECONDS  the longest wait for receivers, streams and commands (300)
//   GATEHOUSE_BIN        another tree's bin/gatehouse (default: this tree's)
//   BENCH_SERVER_ENV     more server settings, NAME=value,… (e.g. RATE_LIMIT_PER_MINUTE=10000000)
//   BENCH_SANDBOXES      busy sandboxes beside the fleet (0): each a small facility simulated by the service
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchDatabase } from './fleet.ts';
import { renderFleetScale } from './fleet-scale/report.ts';
import { runFleetScale, type FleetScaleOptions } from './fleet-scale/scenario.ts';
import { machine } from './load.ts';

const number = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

export function benchOptions(): Omit<FleetScaleOptions, 'databaseEnv'> {
  const [senders, batches, events] = (process.env.BENCH_UPLOAD ?? '4x10x200').split('x').map(Number) as [
    number,
    number,
    number,
  ];
  const seconds = number('BENCH_SECONDS', 60);
  const facilities = number('BENCH_FACILITIES', 10_000);
  return {
    facilities,
    bin: process.env.GATEHOUSE_BIN ? path.resolve(process.env.GATEHOUSE_BIN) : undefined,
    serverEnv: Object.fromEntries(
      (process.env.BENCH_SERVER_ENV ?? '')
        .split(',')
        .filter(Boolean)
        .map((pair) => pair.split('=') as [string, string]),
    ),
    workers: number('BENCH_WORKERS', 2),
    batchSize: number('BENCH_BATCH', 3),
    batchIntervalMs: number('BENCH_BATCH_INTERVAL_MS', 10_000),
    pollWaitSeconds: number('BENCH_POLL_WAIT', 30),
    stormSeconds: number('BENCH_STORM_SECONDS', 600),
    pollSeconds: number('BENCH_POLL_SECONDS', 45),
    batchSeconds: seconds,
    webhookSeconds: seconds,
    fullSeconds: seconds,
    receivers: number('BENCH_RECEIVERS', 5),
    streams: number('BENCH_STREAMS', 100),
    streamSample: number('BENCH_STREAM_SAMPLE', 10),
    pmsPerSecond: number('BENCH_PMS_PER_SECOND', 20),
    statusEveryMs: number('BENCH_STATUS_EVERY_MS', 5000),
    healthEveryMs: number('BENCH_HEALTH_EVERY_MS', 100),
    sandboxes: number('BENCH_SANDBOXES', 0),
    upload: { senders, batches, events },
    floodRounds: number('BENCH_FLOOD_ROUNDS', 3),
    floodRequests: number('BENCH_FLOOD_REQUESTS', 400),
    drainSeconds: number('BENCH_DRAIN_SECONDS', 300),
    onboardConcurrency: number('BENCH_ONBOARD_CONCURRENCY', 8),
    keepPostsAlive: 2 * facilities + 1000 <= openFileLimit(),
    settleMs: 3000,
  };
}

/** The soft limit on open files of this process (the server inherits it). */
function openFileLimit(): number {
  const line = /Max open files\s+(\d+)/.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
  return Number(line?.[1] ?? Number.POSITIVE_INFINITY);
}

export default async function run(): Promise<void> {
  const log = (message: string) => console.error(`${new Date().toISOString().slice(11, 19)} fleet-scale ${message}`);
  const options = benchOptions();
  // Each controller keeps two connections (its poll, and its batches kept alive between them): the
  // server holds two sockets per controller. Where the open-file limit does not allow that, each
  // token request and batch has a connection of its own (one socket per controller, its poll).
  const sockets = 2 * options.facilities + 1000;
  if (!options.keepPostsAlive)
    log(
      `${options.facilities} controllers would need ~${sockets} open files in the server with their batch connections kept alive, more than this shell's limit (${openFileLimit()}): each token request and batch opens a connection of its own`,
    );
  if (options.facilities + 1000 > openFileLimit())
    log(
      `warning: ${options.facilities} controllers need ~${options.facilities + 1000} open files in the server, more than this shell's limit (${openFileLimit()}): raise it (ulimit -n) or expect EMFILE`,
    );
  const machineLine = await machine();
  for (const target of (process.env.BENCH_TARGETS ?? 'postgres').split(',')) {
    const loads = [os.loadavg()[0]!];
    const db = await benchDatabase(target);
    try {
      const result = await runFleetScale({ ...options, databaseEnv: db.env }, (m) => log(`${target}: ${m}`));
      loads.push(os.loadavg()[0]!);
      console.log(
        `${renderFleetScale(result, { ...options, databaseEnv: db.env }, machineLine)}\n\nLoad average (1 min) at the start → end: ${loads.map((l) => l.toFixed(1)).join(' → ')}.\n`,
      );
    } finally {
      await db.drop();
    }
  }
}

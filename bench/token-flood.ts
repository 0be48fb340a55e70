// A valid token request's latency during a flood of wrong secrets: 400 client_credentials requests
// at once from 200 source addresses (127.x.y.z), half for made-up client ids and half for a real
// client with wrong secrets, sent from a worker thread; 100 ms into it, a valid password grant for a
// client never seen before (two uncached scrypt checks) and a valid client_credentials request for
// a client that got a token a moment ago (its secret remembered). Each round uses new addresses,
// a new PMS and a new client to guess at.
//
//   npm run bench -- token-flood                              this tree
//   GATEHOUSE_BIN=/work/main/bin/gatehouse npm run bench -- token-flood   another tree's server
//   BENCH_DATABASE_URL=postgres://…/postgres                  on PostgreSQL (a database of its own)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { BIN, freePort, runCli } from '../test/helpers/process.ts';
import { floodOfWrongSecrets, loopback, postToken } from '../test/helpers/token-flood.ts';
import { machine } from './load.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const bin = process.env.GATEHOUSE_BIN ?? BIN;

async function gatehouse(args: string[], env: Record<string, string>): Promise<string> {
  const result = await runCli(args, env, 60_000, bin);
  if (result.code !== 0) throw new Error(`gatehouse ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

async function serve(env: Record<string, string>) {
  const port = await freePort();
  const child = spawn(process.execPath, [bin, 'serve'], {
    env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (
    (await fetch(`${url}/health`).then(
      (r) => r.status,
      () => 0,
    )) !== 200
  ) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error('the server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export default async function run() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-bench-flood-'));
  const serverUrl = process.env.BENCH_DATABASE_URL;
  const dbName = `gh_bench_flood_${process.pid}`;
  let databaseUrl = '';
  if (serverUrl) {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`create database ${dbName}`);
    await admin.end();
    const url = new URL(serverUrl);
    url.pathname = `/${dbName}`;
    databaseUrl = url.toString();
  }
  // Process-memory counters, the default failure limit; no request rate limit in the way.
  const env = { DATA_DIR: dataDir, DATABASE_URL: databaseUrl, REDIS_URL: '', RATE_LIMIT_PER_MINUTE: '10000000' };
  const json = async (args: string[]) => JSON.parse(await gatehouse(args, env));
  // The command line refuses an empty data directory: make the database first, as an operator does.
  await gatehouse(['migrate'], env);
  const account = await json(['admin', 'account', 'create', '--name', 'Bench']);
  const warm = await json(['admin', 'app', 'create', '--name', 'Warm', '--operator']);
  // Per round: a PMS never seen before, and a real client to guess at (a new one each round, so
  // that a throttle per client id cannot make later floods smaller than the first).
  const rounds: { cold: Record<string, string>; guessed: string }[] = [];
  for (let i = 0; i <= ROUNDS; i++) {
    const pms = await json(['admin', 'app', 'create', '--name', `PMS ${i}`]);
    const key = await json(['admin', 'account-key', 'create', '--account', account.id, '--app', pms.clientId]);
    const guessed = await json(['admin', 'app', 'create', '--name', `Guessed ${i}`, '--operator']);
    rounds.push({
      cold: {
        grant_type: 'password',
        client_id: pms.clientId,
        client_secret: pms.clientSecret,
        username: key.apiKey,
        password: key.apiSecret,
      },
      guessed: guessed.clientId,
    });
  }
  const warmForm = { grant_type: 'client_credentials', client_id: warm.clientId, client_secret: warm.clientSecret };
  const server = await serve(env);
  const rows: string[] = [];
  const uncachedMs: number[] = [];
  const cachedMs: number[] = [];
  try {
    // Without a flood, for comparison (the first cold client).
    const quietUncached = await postToken(server.url, rounds[0]!.cold, loopback(100, 0));
    const quietCached = await postToken(server.url, warmForm, loopback(100, 1));
    if (quietUncached.status !== 200 || quietCached.status !== 200)
      throw new Error(`valid requests failed: ${quietUncached.status} ${quietCached.status}`);
    rows.push(`| no flood | ${Math.round(quietUncached.ms)} | ${Math.round(quietCached.ms)} | — | — |`);
    for (let round = 1; round <= ROUNDS; round++) {
      const flood = floodOfWrongSecrets(server.url, {
        requests: 400,
        addresses: 200,
        block: 10 + round,
        knownClientId: rounds[round]!.guessed,
      });
      await flood.sent; // the whole flood is on its way: the valid requests arrive behind it
      const [uncached, cached] = await Promise.all([
        postToken(server.url, rounds[round]!.cold, loopback(100, 2 * round)),
        postToken(server.url, warmForm, loopback(100, 2 * round + 1)),
      ]);
      const flooded = await flood.answered;
      const outcome = (answer: { status: number; ms: number }) =>
        answer.status === 200 ? `${Math.round(answer.ms)}` : `${Math.round(answer.ms)} (${answer.status})`;
      rows.push(
        `| flood ${round} | ${outcome(uncached)} | ${outcome(cached)} | ${Math.round(flooded.ms)} | ${Object.entries(
          flooded.statuses,
        )
          .map(([status, n]) => `${n}× ${status}`)
          .join(', ')} |`,
      );
      uncachedMs.push(uncached.ms);
      cachedMs.push(cached.ms);
      // Let whatever the flood left waiting drain before the next round.
      await new Promise((r) => setTimeout(r, 1000));
    }
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    if (serverUrl) {
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`drop database if exists ${dbName} with (force)`);
      await admin.end();
    }
  }
  console.log(`Valid token requests during a flood of 400 wrong secrets (${databaseUrl ? 'PostgreSQL' : 'embedded'} database; server ${path.relative(process.cwd(), bin) || bin}); ${await machine()}; load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} at the end

| round | valid password grant, uncached (ms) | valid client_credentials, cached (ms) | flood answered in (ms) | flood answers |
|---|---|---|---|---|
${rows.join('\n')}

During the floods: uncached median ${Math.round(median(uncachedMs))} ms, max ${Math.round(Math.max(...uncachedMs))} ms; cached median ${Math.round(median(cachedMs))} ms, max ${Math.round(Math.max(...cachedMs))} ms.`);
}

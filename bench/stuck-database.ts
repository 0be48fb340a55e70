// How long a request blocked by the database takes to answer: another session holds a lock the
// request's read needs (PostgreSQL: LOCK TABLE … ACCESS EXCLUSIVE; embedded: an open transaction
// on the data directory's socket, which holds every other connection there). The lock is held
// for BENCH_HOLD_SECONDS (60) at most, then released; a request still waiting then answers.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { dataDirLayout, EMBEDDED_PORT } from '../src/db/data-dir.ts';
import { startServerProcess } from '../test/helpers/process.ts';
import { seedAccount } from '../test/helpers/seed.ts';

const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const HOLD_MS = Number(process.env.BENCH_HOLD_SECONDS ?? 60) * 1000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

interface Answer {
  ms: number;
  status: number;
  retryAfter: string | null;
  /** The request was still waiting when the lock was released. */
  waitedForRelease: boolean;
}

/** Holds the lock, times one request, releases the lock (at the latest after HOLD_MS). */
async function blockedRequest(holder: pg.Client, lock: string, url: string, token: string): Promise<Answer> {
  await holder.query('begin');
  await holder.query(lock);
  let released = false;
  const release = setTimeout(() => {
    released = true;
    holder.query('rollback').catch(() => {});
  }, HOLD_MS);
  const started = performance.now();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  const ms = Math.round(performance.now() - started);
  clearTimeout(release);
  if (!released) await holder.query('rollback').catch(() => {});
  return { ms, status: response.status, retryAfter: response.headers.get('retry-after'), waitedForRelease: released };
}

async function measure(
  label: string,
  env: Record<string, string>,
  connectHolder: () => pg.Client,
  lock: string,
): Promise<string> {
  const account = await seedAccount(env);
  const server = await startServerProcess(env, 60_000, { quiet: true });
  const answers: Answer[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const holder = connectHolder();
      // The embedded server ends a connection idle in a transaction: that is not a failure here.
      holder.on('error', () => {});
      await holder.connect();
      answers.push(await blockedRequest(holder, lock, `${server.url}/facilities`, account.token));
      await holder.end().catch(() => {});
      // The service is itself again before the next round.
      const after = await fetch(`${server.url}/facilities`, { headers: { authorization: `Bearer ${account.token}` } });
      if (after.status !== 200) throw new Error(`${label}: ${after.status} after the lock was released`);
    }
  } finally {
    await server.kill();
  }
  const each = answers.map(
    (a) =>
      `${a.ms} ms → ${a.status}${a.retryAfter ? ` (Retry-After ${a.retryAfter})` : ''}${a.waitedForRelease ? ', when the lock was released' : ''}`,
  );
  const median = [...answers].sort((a, b) => a.ms - b.ms)[Math.floor(answers.length / 2)]!;
  return `| ${label} | ${median.ms} | ${each.join('; ')} |`;
}

export default async function run() {
  const rows: string[] = [];
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-bench-stuck-'));
  try {
    // Embedded: a second connection on the server's socket holds a transaction open.
    const embeddedDir = path.join(work, 'embedded');
    const embedded = { DATA_DIR: embeddedDir, DATABASE_URL: '' };
    const layout = dataDirLayout(embeddedDir);
    const onSocket = () =>
      new pg.Client({ host: layout.socketDir, port: EMBEDDED_PORT, user: 'postgres', database: 'postgres' });
    rows.push(await measure('embedded (PGlite): a connection idle in a transaction', embedded, onSocket, 'select 1'));
    // Without the idle limit only the request deadline bounds the wait.
    rows.push(
      await measure(
        'embedded, DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS=0',
        { ...embedded, DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '0' },
        onSocket,
        'select 1',
      ),
    );

    // PostgreSQL: a fresh database; another session locks the table the read needs.
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    const name = `gh_bench_stuck_${process.pid}`;
    await admin.query(`create database ${name}`);
    try {
      const url = new URL(PG_URL);
      url.pathname = `/${name}`;
      const postgres = { DATA_DIR: path.join(work, 'postgres'), DATABASE_URL: url.toString() };
      rows.push(
        await measure(
          'PostgreSQL 15: LOCK TABLE facilities IN ACCESS EXCLUSIVE MODE',
          postgres,
          () => new pg.Client({ connectionString: url.toString() }),
          'lock table facilities in access exclusive mode',
        ),
      );
    } finally {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }

  console.log(`A request (GET /facilities) blocked by a lock held by another session; the lock is released after ${HOLD_MS / 1000} s at the latest.
${os.cpus().length} × ${os.cpus()[0]?.model}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}

| database: what holds the lock | median time to answer (ms) | each round |
|---|---|---|
${rows.join('\n')}`);
}

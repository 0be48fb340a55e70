// Start-up time to a 200 from /availability (first start on an empty database, then a later
// start), on the embedded database and on PostgreSQL; resident memory at idle on the embedded one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startServerProcess } from '../test/helpers/process.ts';

const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function timeToAvailable(env: Record<string, string>) {
  const started = performance.now();
  const server = await startServerProcess(env, 60_000, { quiet: true });
  for (;;) {
    const response = await fetch(`${server.url}/availability`).catch(() => null);
    if (response?.status === 200) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return { ms: Math.round(performance.now() - started), server };
}

function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024);
}

export default async function run() {
  const rows: string[] = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-bench-'));

  // Embedded.
  const first = await timeToAvailable({ DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'info' });
  await first.server.kill();
  const later = await timeToAvailable({ DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'info' });
  await new Promise((r) => setTimeout(r, 10_000));
  const idle = rssMiB(later.server.child.pid!);
  await later.server.kill();
  rows.push(`| embedded (PGlite) | ${first.ms} | ${later.ms} | ${idle} |`);

  // PostgreSQL: a fresh database for the first start.
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  const name = `gh_bench_startup_${process.pid}`;
  await admin.query(`create database ${name}`);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  const pgFirst = await timeToAvailable({ DATA_DIR: dataDir, DATABASE_URL: url.toString(), LOG_LEVEL: 'info' });
  await pgFirst.server.kill();
  const pgLater = await timeToAvailable({ DATA_DIR: dataDir, DATABASE_URL: url.toString(), LOG_LEVEL: 'info' });
  await new Promise((r) => setTimeout(r, 10_000));
  const pgIdle = rssMiB(pgLater.server.child.pid!);
  await pgLater.server.kill();
  await admin.query(`drop database ${name} with (force)`);
  await admin.end();
  rows.push(`| PostgreSQL 15 server | ${pgFirst.ms} | ${pgLater.ms} | ${pgIdle} |`);
  fs.rmSync(dataDir, { recursive: true, force: true });

  console.log(`Start-up: process spawn → first 200 from /availability (ms); RSS after 10 s idle (MiB).
${os.cpus().length} × ${os.cpus()[0]?.model}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}

| database | first start (ms) | later start (ms) | idle RSS (MiB) |
|---|---|---|---|
${rows.join('\n')}`);
}

// Start-up as a user meets it: `npm start` in a tree, timed from the spawn to the first 200 from
// /availability — on a new data directory (or a new database) and on an existing one, the median
// of RUNS each — and the resident memory of the whole `npm start` process tree (npm, the shell,
// node: the sum over /proc) after 10 s idle. On the embedded database and on PostgreSQL.
//   npm run bench -- startup
//   BENCH_BEFORE_TREE=/tmp/before npm run bench -- startup   also another tree (say, main's), in the same run
// embeddedStartup() is the same measure on the embedded database alone, without the idle RSS (the events
// benchmark prints it as issue 29's fourth measure). Build dist/ first (`npm run build`): a tree whose dist/
// is stale starts through tsx, which is not the start a user meets.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort } from '../test/helpers/process.ts';

const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const IDLE_MS = 10_000;
const THIS_TREE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface Started {
  ms: number;
  child: ChildProcess;
}

/** `npm start` in `tree`; resolves at the first 200 from /availability. */
async function npmStart(tree: string, env: Record<string, string>): Promise<Started> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn('npm', ['start'], {
    cwd: tree,
    env: { ...process.env, HOST: '127.0.0.1', ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true, // its own process group: stopped as a whole
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-5000)));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}) in ${tree}:\n${stderr}`);
    const status = await fetch(`http://127.0.0.1:${port}/availability`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return { ms: Math.round(performance.now() - started), child };
    if (performance.now() - started > 120_000) throw new Error(`no 200 from /availability in 120 s:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function stop({ child }: Started): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid!, 'SIGTERM');
  await exited;
  // The server is npm's grandchild: wait until the whole group is gone (the data directory's lock).
  for (let i = 0; i < 500; i++) {
    try {
      process.kill(-child.pid!, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** VmRSS (MiB) summed over the process and all its descendants. */
function treeRssMiB(pid: number): number {
  let kib = 0;
  const visit = (p: number) => {
    try {
      kib += Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
      for (const task of fs.readdirSync(`/proc/${p}/task`)) {
        const children = fs.readFileSync(`/proc/${p}/task/${task}/children`, 'utf8').trim();
        for (const child of children ? children.split(/\s+/) : []) visit(Number(child));
      }
    } catch {
      /* gone */
    }
  };
  visit(pid);
  return Math.round(kib / 1024);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

interface Row {
  tree: string;
  database: string;
  first: number[];
  later: number[];
  rss: number;
}

/** RUNS starts on a new data directory (or database) each, then RUNS on the last one; `idleRss`: the tree's RSS after IDLE_MS idle. */
async function measure(
  tree: string,
  label: string,
  database: string,
  fresh: () => Promise<Record<string, string>>,
  idleRss = true,
): Promise<Row> {
  const first: number[] = [];
  const later: number[] = [];
  let env: Record<string, string> = {};
  for (let i = 0; i < RUNS; i++) {
    env = await fresh();
    const run = await npmStart(tree, env);
    first.push(run.ms);
    await stop(run);
  }
  let rss = 0;
  for (let i = 0; i < RUNS; i++) {
    const run = await npmStart(tree, env);
    later.push(run.ms);
    if (idleRss && i === RUNS - 1) {
      await new Promise((r) => setTimeout(r, IDLE_MS));
      rss = treeRssMiB(run.child.pid!);
    }
    await stop(run);
  }
  const row = { tree: label, database, first, later, rss };
  console.error(`# ${label} ${database}: first ${first.join(' ')} ms; later ${later.join(' ')} ms; ${rss} MiB`);
  return row;
}

/** The embedded database's settings with a new data directory (not made yet) under `scratch` at each call. */
const newDataDirectory = (scratch: string) => async (): Promise<Record<string, string>> => ({
  DATA_DIR: path.join(fs.mkdtempSync(path.join(scratch, 'embedded-')), 'data'),
  DATABASE_URL: '',
});

/** `npm start` of this tree on the embedded database, fresh and existing data directory: the median of RUNS (ms) and every run. */
export async function embeddedStartup(): Promise<{
  first: number;
  later: number;
  firstRuns: number[];
  laterRuns: number[];
}> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-bench-'));
  try {
    const row = await measure(THIS_TREE, 'this tree', 'embedded (PGlite)', newDataDirectory(scratch), false);
    return { first: median(row.first), later: median(row.later), firstRuns: row.first, laterRuns: row.later };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

export default async function run() {
  const trees: [string, string][] = [];
  if (process.env.BENCH_BEFORE_TREE) trees.push(['before', path.resolve(process.env.BENCH_BEFORE_TREE)]);
  trees.push([process.env.BENCH_BEFORE_TREE ? 'after' : 'this tree', THIS_TREE]);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-bench-'));
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  const made: string[] = [];
  const load = os.loadavg().map((l) => l.toFixed(2));
  const rows: Row[] = [];
  try {
    let n = 0;
    for (const [label, tree] of trees) {
      rows.push(await measure(tree, label, 'embedded (PGlite)', newDataDirectory(scratch)));
      rows.push(
        await measure(tree, label, 'PostgreSQL 15', async () => {
          const name = `gh_bench_startup_${process.pid}_${n++}`;
          await admin.query(`create database ${name}`);
          made.push(name);
          const url = new URL(PG_URL);
          url.pathname = `/${name}`;
          return { DATA_DIR: path.join(scratch, `d${n++}`), DATABASE_URL: url.toString() };
        }),
      );
    }
  } finally {
    for (const name of made) await admin.query(`drop database if exists ${name} with (force)`).catch(() => {});
    await admin.end();
    fs.rmSync(scratch, { recursive: true, force: true });
  }

  console.log(`Start-up: \`npm start\` spawned → first 200 from /availability (ms, median of ${RUNS}: a new data
directory or database each time for "first", the same one for "later"); RSS of the whole process
tree (npm, sh, node) after ${IDLE_MS / 1000} s idle (MiB).
${os.cpus().length} × ${os.cpus()[0]?.model}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, load average at start ${load.join(' ')}, at end ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}

| tree | database | first start (ms) | later start (ms) | idle RSS (MiB) | runs: first / later |
|---|---|---|---|---|---|
${rows.map((r) => `| ${r.tree} | ${r.database} | ${median(r.first)} | ${median(r.later)} | ${r.rss} | ${r.first.join(', ')} / ${r.later.join(', ')} |`).join('\n')}`);
}

#!/usr/bin/env node
// `npm test`: the whole suite, on the embedded database, or on the PostgreSQL server named by
// DATABASE_URL. A migrated template is built once (a data directory, or a template database);
// each test file then starts from a copy of it.
//   npm test                      every file under test/
//   npm test -- test/ops.test.ts  only the files named
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const databaseUrl = process.env.DATABASE_URL || null;
const runId = `${process.pid}_${Date.now().toString(36)}`;
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-test-'));
// Whatever a test, a server it starts, the browser or tsx's cache puts in the temp folder lands in the
// run's own folder, removed at the end: a run leaves nothing behind.
process.env.TMPDIR = path.join(workDir, 'tmp');
fs.mkdirSync(process.env.TMPDIR);

function listTests(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return listTests(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

function migrateTemplate(env) {
  const result = spawnSync(process.execPath, [path.join(root, 'bin/gatehouse'), 'migrate'], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    process.stderr.write(result.stderr);
    throw new Error('could not build the test database template');
  }
}

function withDatabase(url, name) {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

// The support console is tested in a real browser: Debian's chromium. The test runner never
// installs system packages (CI does, in .ci/run); it says plainly what is missing.
function ensureChromium(files) {
  if (fs.existsSync('/usr/bin/chromium') || !files.some((f) => f.includes(`${path.sep}console${path.sep}`))) return;
  throw new Error(
    'the support console test needs a browser: install Debian chromium (apt-get install chromium) at /usr/bin/chromium',
  );
}

/** The signal that interrupted the run (Ctrl-C), if one did; the test run it is passed on to. */
let interrupted = null;
let running = null;
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    interrupted = signal;
    try {
      if (running) process.kill(-running.pid, signal);
    } catch {} // the run has just ended
  });

async function main() {
  const files = process.argv.slice(2).length > 0 ? process.argv.slice(2) : listTests(path.join(root, 'test')).sort();
  ensureChromium(files);
  const env = { ...process.env, GATEHOUSE_TEST_WORKDIR: workDir, GATEHOUSE_TEST_RUN_ID: runId };
  const started = Date.now();
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    try {
      await client.connect();
      admin = client; // only a connected client: cleanUp's queries on another would never settle
    } catch (error) {
      // The service's own sentence for it, with the fix (a missing database, a refused password…).
      const { tsImport } = await import('tsx/esm/api');
      const { databaseTarget, explainDatabaseFailure } = await tsImport('../src/db/start-failures.ts', import.meta.url);
      throw new Error(explainDatabaseFailure(error, databaseTarget(databaseUrl)));
    }
    templateDb = `gh_tpl_${runId}`;
    await admin.query(`create database ${templateDb}`);
    migrateTemplate({ DATABASE_URL: withDatabase(databaseUrl, templateDb) });
    if (interrupted) throw new Error(`interrupted (${interrupted}) while making the template`);
    env.GATEHOUSE_TEST_TEMPLATE_DB = templateDb;
    console.log(`# database: PostgreSQL (${new URL(databaseUrl).host}), template ${templateDb}`);
  } else {
    const template = path.join(workDir, 'template');
    migrateTemplate({ DATA_DIR: template, DATABASE_URL: '' });
    env.GATEHOUSE_TEST_TEMPLATE_DIR = template;
    console.log('# database: embedded PGlite');
  }
  console.log(`# template ready in ${Date.now() - started} ms; ${files.length} test files`);

  const code = await new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--test',
        // Three files at a time (TEST_CONCURRENCY to change it): most files wait on servers, browsers and
        // timers more than they compute, so on 2 cores three finish sooner than two (1,138 tests: 525 s).
        `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 3}`,
        // One line per file as it finishes, then the failures in full and the totals.
        `--test-reporter=${path.join(root, 'scripts/progress-reporter.mjs')}`,
        '--test-reporter-destination=stdout',
        ...files,
      ],
      // A process group of its own: an interruption reaches the runner (which prints what ran so far) and
      // every test file's process at once, from here, and then this one cleans up.
      { stdio: 'inherit', env, cwd: root, detached: true },
    );
    running = child;
    child.on('exit', (status, signal) => resolve(interrupted ? 130 : (status ?? (signal ? 1 : 0))));
  });

  await cleanUp();
  process.exitCode = code;
}

/** The run's databases (on PostgreSQL) and its folder go, however it ended. */
let admin = null;
let templateDb = null;
async function cleanUp() {
  if (admin) {
    const { rows } = await admin.query('select datname from pg_database where datname like $1 or datname = $2', [
      `gh_t_${runId}%`,
      templateDb,
    ]);
    for (const { datname } of rows)
      await admin.query(`drop database if exists ${datname} with (force)`).catch(() => {});
    await admin.end();
    admin = null;
  }
  fs.rmSync(workDir, { recursive: true, force: true });
}

main().catch(async (error) => {
  console.error(`test: ${error.message}`);
  process.exitCode = 1;
  await cleanUp().catch(() => {});
});

// `npm test` itself (scripts/test.mjs): a run leaves nothing in the temp folder — what its tests put there
// lands in the run's own folder, removed at the end — and a run interrupted (Ctrl-C) prints what ran so
// far, stops every test file's process, and cleans up the same way (the folder, and on PostgreSQL the
// run's template database).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const fixtures = ['test/fixtures/passing.fixture.ts', 'test/fixtures/runner-temp.fixture.ts'];

/** `npm test -- <files>` in a temp folder of its own; `interrupt` is called with the process as output comes and every 100 ms. */
function runTests(env: Record<string, string>, interrupt?: (child: ReturnType<typeof spawn>) => void) {
  // Without this test's own runner context: with it, the inner node --test would report to this run instead.
  const { NODE_TEST_CONTEXT: _, ...outer } = process.env;
  const child = spawn(process.execPath, ['scripts/test.mjs', ...fixtures], {
    cwd: root,
    env: { ...outer, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    interrupt?.(child);
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  // Also between outputs: what it waits for may come after the last one.
  const polling = interrupt && setInterval(() => interrupt(child), 100);
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => {
      clearInterval(polling);
      resolve({ code, stdout, stderr });
    }),
  );
}

async function templateDatabases(): Promise<string[]> {
  if (!process.env.DATABASE_URL) return [];
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(
      "select datname from pg_database where datname like 'gh_tpl_%' order by 1",
    );
    return rows.map((row) => row.datname);
  } finally {
    await client.end();
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

it('a run leaves nothing in the temp folder, though its tests wrote there', async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'runner-'));
  const before = await templateDatabases();
  const { code, stdout, stderr } = await runTests({ TMPDIR: tmp });
  assert.equal(code, 0, stdout + stderr);
  assert.match(stdout, /✔ tests 2: 2 passed, 0 failed, 0 skipped · files 2 /);
  assert.deepEqual(fs.readdirSync(tmp), []);
  assert.deepEqual(await templateDatabases(), before, 'the run’s template database is dropped');
  fs.rmSync(tmp, { recursive: true });
});

it('an interrupted run prints its totals so far, stops its test files’ processes, and cleans up', async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'runner-'));
  const pidFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'runner-pid-')), 'pid');
  const before = await templateDatabases();
  let sent = false;
  const { code, stdout } = await runTests({ TMPDIR: tmp, GATEHOUSE_FIXTURE_HANG: pidFile }, (child) => {
    // Once the second file waits in its second test: Ctrl-C, as npm passes it on. (Whether the first file's
    // line is out by then depends on the order its events and the second file's reached the reporter.)
    if (sent || !fs.existsSync(pidFile)) return;
    sent = true;
    child.kill('SIGINT');
  });
  assert.ok(sent, `the run was interrupted:\n${stdout}`);
  assert.equal(code, 130, stdout);
  assert.match(
    stdout,
    /✖ interrupted \(SIGINT\) after [01] of 2 files · \d+ tests? so far: \d+ passed, 0 failed, 0 skipped · /,
  );
  assert.doesNotMatch(stdout, /✔ tests /, 'not the totals of a run that ended by itself');
  const hanging = Number(fs.readFileSync(pidFile, 'utf8'));
  for (let i = 0; i < 50 && alive(hanging); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(alive(hanging), false, 'the waiting test file’s process is stopped');
  assert.deepEqual(fs.readdirSync(tmp), []);
  assert.deepEqual(await templateDatabases(), before, 'the run’s template database is dropped');
  fs.rmSync(tmp, { recursive: true });
  fs.rmSync(path.dirname(pidFile), { recursive: true });
});

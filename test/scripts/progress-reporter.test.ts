// The test runner's reporter (scripts/progress-reporter.mjs), run by node --test over two fixture
// files as `npm test` runs it: a line per file as it finishes, the failure in full, the totals.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function runReporter(files: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // Without this test's own runner context: with it, node --test would report to this run instead.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      '--test-concurrency=2',
      '--test-reporter=./scripts/progress-reporter.mjs',
      '--test-reporter-destination=stdout',
      ...files,
    ],
    { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

it('prints a line per file, then the failure with its assertion and stack, then the totals', async () => {
  const { code, stdout, stderr } = await runReporter([
    'test/fixtures/progress.fixture.ts',
    'test/fixtures/passing.fixture.ts',
  ]);
  assert.equal(code, 1, 'a failing test fails the run');
  assert.equal(stderr, '');
  const lines = stdout.split('\n');
  // One line per file, numbered out of all of them, with its tests and its time.
  const progress = lines.filter((line) => line.startsWith('['));
  assert.equal(progress.length, 2, stdout);
  assert.match(
    progress.find((line) => line.includes('progress.fixture'))!,
    /^\[[12]\/2\] ✖ test\/fixtures\/progress\.fixture\.ts {2}2 tests \(1 failed\) {2}\d+\.\d s$/,
  );
  assert.match(
    progress.find((line) => line.includes('passing.fixture'))!,
    /^\[[12]\/2\] ✔ test\/fixtures\/passing\.fixture\.ts {2}1 test {2}\d+\.\d s$/,
  );
  assert.deepEqual(
    progress.map((line) => line.slice(0, 6)),
    ['[1/2] ', '[2/2] '],
  );
  // A test's own note ("# …") is shown; the other tests' names are not (that is the spec reporter).
  assert.match(stdout, /test\/fixtures\/passing\.fixture\.ts: # a note the reporter shows/);
  assert.doesNotMatch(stdout, /adds up/);
  // The failure in full: where, its suite and name, the assertion with its values, the stack.
  const failure = stdout.slice(stdout.indexOf('✖ 1 failure:'));
  assert.ok(stdout.includes('✖ 1 failure:'), stdout);
  assert.match(failure, /✖ test\/fixtures\/progress\.fixture\.ts {2}a fixture › finds the gate closed/);
  assert.match(failure, /AssertionError \[ERR_ASSERTION\]: the gate should be closed/);
  assert.match(failure, /actual: 'open'/);
  assert.match(failure, /expected: 'closed'/);
  assert.match(failure, /at .*progress\.fixture\.ts:\d+:\d+/);
  // The totals, last.
  assert.match(
    lines.filter(Boolean).at(-1)!,
    /^✖ tests 3: 2 passed, 1 failed, 0 skipped · files 2 \(1 failed\) · \d+\.\d s$/,
  );
});

it('counts a file’s skipped and todo tests in its line and in the totals', async () => {
  // node's events for one file, given to the reporter directly: no test of this repository is skipped.
  const url = new URL('../../scripts/progress-reporter.mjs', import.meta.url).href;
  const { default: progressReporter } = (await import(url)) as {
    default: (source: AsyncIterable<{ type: string; data: object }>) => AsyncIterable<string>;
  };
  const file = path.join(process.cwd(), 'test/fixtures/counted.fixture.ts');
  const test = (name: string, extra: object = {}) => ({ name, nesting: 0, file, details: {}, ...extra });
  async function* events() {
    yield { type: 'test:enqueue', data: { name: file, nesting: 0, file } };
    yield { type: 'test:pass', data: test('runs') };
    yield { type: 'test:pass', data: test('waits', { skip: true }) };
    yield { type: 'test:pass', data: test('comes later', { todo: true }) };
    yield { type: 'test:complete', data: test(file, { details: { passed: true, duration_ms: 1200 } }) };
    for (const message of ['tests 3', 'pass 1', 'fail 0', 'skipped 1', 'todo 1', 'duration_ms 1300'])
      yield { type: 'test:diagnostic', data: { nesting: 0, message } };
  }
  let output = '';
  for await (const chunk of progressReporter(events())) output += chunk;
  assert.match(output, /^\[1\/1\] ✔ test\/fixtures\/counted\.fixture\.ts {2}3 tests \(1 skipped, 1 todo\) {2}1\.2 s$/m);
  assert.match(output, /^✔ tests 3: 1 passed, 0 failed, 1 skipped, 1 todo · files 1 · 1\.3 s$/m);
});

it('says why a file failed outside its tests, from what it printed', async () => {
  const dir = fs.mkdtempSync(path.join(root, 'test/fixtures/tmp-'));
  try {
    const broken = path.join(dir, 'broken.fixture.ts');
    fs.writeFileSync(broken, "throw new Error('the fixture could not load');\n");
    const { code, stdout } = await runReporter([path.relative(root, broken)]);
    assert.equal(code, 1);
    assert.match(stdout, /^\[1\/1\] ✖ test\/fixtures\/tmp-\w+\/broken\.fixture\.ts {2}0 tests {2}\d+\.\d s$/m);
    assert.match(stdout, /✖ test\/fixtures\/tmp-\w+\/broken\.fixture\.ts {2}\(the file itself, outside its tests\)/);
    assert.match(
      stdout,
      /--- what test\/fixtures\/tmp-\w+\/broken\.fixture\.ts printed ---\n[\s\S]*Error: the fixture could not load/,
    );
    assert.match(stdout, /✖ tests 1: 0 passed, 1 failed, 0 skipped · files 1 \(1 failed\)/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

it('is what npm test runs, and npm test never runs the fixtures', () => {
  const runner = fs.readFileSync(path.join(root, 'scripts/test.mjs'), 'utf8');
  assert.match(runner, /--test-reporter=\$\{path\.join\(root, 'scripts\/progress-reporter\.mjs'\)\}/);
  assert.match(runner, /entry\.name\.endsWith\('\.test\.ts'\)/);
  for (const name of fs.readdirSync(path.join(root, 'test/fixtures'))) assert.doesNotMatch(name, /\.test\.ts$/);
});

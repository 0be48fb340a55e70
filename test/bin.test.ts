// bin/gatehouse runs the plain JavaScript built in dist/ only while it was built from the sources
// as they are (the hash recorded by scripts/build.mjs), and the TypeScript sources through tsx
// otherwise. Tested on a copy of the tree, built there, then with one source file edited.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from './helpers/harness.ts';
import { startServerProcess } from './helpers/process.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const copy = fs.mkdtempSync(path.join(process.env.GATEHOUSE_TEST_WORKDIR ?? os.tmpdir(), 'tree-'));
const bin = path.join(copy, 'bin/gatehouse');
let database: TestDatabase;

async function servedFrom(): Promise<string> {
  const server = await startServerProcess(database.env, 60_000, { bin });
  try {
    const line =
      server
        .output()
        .split('\n')
        .find((l) => l.includes('gatehouse is serving')) ?? '';
    return (JSON.parse(line) as { code: string }).code;
  } finally {
    assert.equal(await server.kill(), 0);
  }
}

before(async () => {
  for (const dir of ['src', 'bin', 'scripts', 'clients'])
    fs.cpSync(path.join(root, dir), path.join(copy, dir), { recursive: true });
  fs.copyFileSync(path.join(root, 'package.json'), path.join(copy, 'package.json'));
  fs.symlinkSync(fs.realpathSync(path.join(root, 'node_modules')), path.join(copy, 'node_modules'));
  database = await createTestDatabase();
});
after(async () => {
  await database.drop();
  fs.rmSync(copy, { recursive: true, force: true });
});

describe('bin/gatehouse', () => {
  it('runs dist/ while it matches the sources, and the sources through tsx once one changed', async () => {
    // Without a build: the sources.
    assert.equal(await servedFrom(), 'src');

    const build = spawnSync(process.execPath, ['scripts/build.mjs', '--no-template'], { cwd: copy, encoding: 'utf8' });
    assert.equal(build.status, 0, build.stderr);
    assert.match(build.stdout, /built dist\//);
    assert.ok(fs.existsSync(path.join(copy, 'dist/main.js')));
    assert.equal(await servedFrom(), 'dist');

    // An edited source: dist/ is stale and is not run.
    fs.appendFileSync(path.join(copy, 'src/logger.ts'), '\n// edited after the build\n');
    assert.equal(await servedFrom(), 'src');
  });
});

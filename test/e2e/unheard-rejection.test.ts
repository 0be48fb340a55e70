// A promise that fails with no one to hear it, in a serving process: logged as an error with its
// reason, and the service goes on serving (Node's default ends the process, and every controller's
// connection with it). Seen once under the 10,000-facility benchmark (a connection not found in
// time); src/server.ts logUnheardRejections.
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/harness.ts';
import { runProgram } from '../helpers/process.ts';

const fixture = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/unheard-rejection.fixture.ts');
let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database?.drop());

describe('a promise rejected with no one to hear it', () => {
  it('is logged as an error naming its reason, and the server goes on answering', async () => {
    const run = await runProgram(process.execPath, ['--import', 'tsx', fixture], {
      env: { ...database.env, LOG_LEVEL: 'error' },
      timeoutMs: 60_000,
    });
    assert.equal(run.code, 0, run.stderr + run.stdout);
    assert.match(run.stdout, /^health 200$/m);
    const line = run.stdout.split('\n').find((l) => l.includes('no one to hear it'));
    assert.ok(line, run.stdout);
    const logged = JSON.parse(line);
    assert.equal(logged.level, 50);
    assert.match(logged.err.message, /timeout exceeded when trying to connect/);
  });
});

// What the started process says about its settings: a misspelt one is named in a warning (in the
// log, JSON or readable), LOG_FORMAT=pretty writes readable lines, and an instance whose gate-code
// key is not the database's is refused in its own sentence (not as an "unexpected failure").
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, onPostgres, type TestDatabase } from '../helpers/harness.ts';
import { BIN, runCli, startServerProcess } from '../helpers/process.ts';
import { CodeKeyMismatchError } from '../../src/access-control/codes.ts';
import { explainCodeKeyFailure } from '../../src/db/start-failures.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.drop());

const MISSPELT = {
  PROT: '8081',
  DATABSE_URL: 'postgres://nowhere/x',
  REDIS_ULR: 'redis://nowhere',
  OUTBOUND_ALLOW_HOST: 'a.local',
};
const WARNINGS = [
  'DATABSE_URL: not a setting; did you mean DATABASE_URL?',
  'OUTBOUND_ALLOW_HOST: not a setting; did you mean OUTBOUND_ALLOW_HOSTS?',
  'PROT: not a setting; did you mean PORT?',
  'REDIS_ULR: not a setting; did you mean REDIS_URL?',
];

describe('settings at start-up', () => {
  it('warns of each misspelt setting in the log (JSON), and starts as it would without them', async () => {
    const server = await startServerProcess({ ...database.env, ...MISSPELT, LOG_FORMAT: 'json' });
    try {
      const warnings = server
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line))
        .filter((record) => record.level === 40 && / not a setting; /.test(record.msg));
      assert.deepEqual(
        warnings.map((record) => record.msg),
        WARNINGS,
      );
      assert.deepEqual(
        { variable: warnings[2].variable, setting: warnings[2].setting },
        { variable: 'PROT', setting: 'PORT' },
      );
      assert.ok((await fetch(`${server.url}/health`)).ok, 'PROT did not set the port: the server serves on PORT');
    } finally {
      await server.kill();
    }
  });

  it('writes readable lines with LOG_FORMAT=pretty: the warning, the serving line and the requests', async () => {
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: {
        ...process.env,
        ...database.env,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'pretty',
        PROT: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const waitFor = async (pattern: RegExp) => {
      const deadline = Date.now() + 60_000;
      while (!pattern.test(output)) {
        if (child.exitCode !== null || Date.now() > deadline) assert.fail(`no ${pattern} in:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return pattern.exec(output)!;
    };
    try {
      const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';
      await waitFor(
        new RegExp(`^${TIME} WARN  PROT: not a setting; did you mean PORT\\? variable=PROT setting=PORT$`, 'm'),
      );
      const serving = await waitFor(new RegExp(`^${TIME} INFO  gatehouse is serving port=(\\d+) database=\\S+ `, 'm'));
      assert.equal((await fetch(`http://127.0.0.1:${serving[1]}/health?api_key=hunter2`)).status, 200);
      const request = await waitFor(new RegExp(`^${TIME} INFO  request reqId=\\S+ method=GET url=\\S+ .*$`, 'm'));
      assert.match(
        request[0],
        / url="\/health\?api_key=\[redacted\]" route=\/health statusCode=200 responseTimeMs=[\d.]+ remoteAddress=127\.0\.0\.1$/,
      );
      assert.doesNotMatch(output, /hunter2/);
      assert.doesNotMatch(output, /^\{/m, 'no JSON line');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});

describe('an instance whose gate-code key is not the database’s', () => {
  // A database of its own: the servers above sealed theirs with the data directory's key file.
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.drop());
  const first = randomBytes(32).toString('hex');
  /** The second instance's own data directory (on PostgreSQL: another machine; embedded: the same directory). */
  let secondDir: string;

  it('is refused in one line that names ACCESS_CODE_KEY and what to do, with ACCESS_CODE_KEY set or not', async () => {
    const firstServer = await startServerProcess({ ...database.env, ACCESS_CODE_KEY: first });
    // The embedded database is one process's: the other instance starts once the first has stopped.
    if (!onPostgres) await firstServer.kill();
    secondDir = onPostgres ? fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-second-')) : database.env.DATA_DIR!;
    const where = onPostgres
      ? `database ${new URL(database.env.DATABASE_URL!).host}${new URL(database.env.DATABASE_URL!).pathname}`
      : `the embedded database in ${database.env.DATA_DIR}`;
    try {
      const another = await runCli(['serve'], {
        ...database.env,
        DATA_DIR: secondDir,
        PORT: '0',
        ACCESS_CODE_KEY: randomBytes(32).toString('hex'),
      });
      assert.equal(another.code, 1, another.stderr);
      assert.equal(
        another.stderr,
        `gatehouse: ACCESS_CODE_KEY: the gate codes in ${where} were sealed with another key than this instance's ` +
          'ACCESS_CODE_KEY: every instance on one database needs the same key; set ACCESS_CODE_KEY to the key of the ' +
          'instance that started first (its ACCESS_CODE_KEY, or the contents of its DATA_DIR/keys/access-codes.key ' +
          'when it has none)\n',
      );

      // Without ACCESS_CODE_KEY the instance uses (and at its first start makes) a key file of its own.
      const unset = await runCli(['serve'], { ...database.env, DATA_DIR: secondDir, PORT: '0', ACCESS_CODE_KEY: '' });
      assert.equal(unset.code, 1, unset.stderr);
      const keyFile = path.join(secondDir, 'keys', 'access-codes.key');
      assert.ok(
        unset.stderr.startsWith(
          `gatehouse: ACCESS_CODE_KEY: the gate codes in ${where} were sealed with another key than this instance's ` +
            `key, ${keyFile} (ACCESS_CODE_KEY is not set: it was made at this instance's first start): every instance`,
        ),
        unset.stderr,
      );
      assert.equal(unset.stderr.trim().split('\n').length, 1, unset.stderr);
      assert.doesNotMatch(another.stderr + unset.stderr, /unexpected failure/);
    } finally {
      await firstServer.kill();
      if (onPostgres) fs.rmSync(secondDir, { recursive: true, force: true });
    }
  });
});

describe('the gate-code key refusal’s sentence', () => {
  const facts = { fromSetting: false, keyFile: '/x/keys/access-codes.key', database: 'database db:5432/gh' };

  it('is for the key mismatch only: a key file that holds no key, or another error, keeps its own', () => {
    const unreadable = new CodeKeyMismatchError('/x/keys/access-codes.key does not hold a 32-byte key', 'unreadable');
    assert.equal(explainCodeKeyFailure(unreadable, facts), null);
    assert.equal(
      explainCodeKeyFailure(new Error('the gate codes … were sealed with another access code key'), facts),
      null,
    );
    assert.match(
      explainCodeKeyFailure(new CodeKeyMismatchError('sealed with another access code key', 'another'), facts)!,
      /^ACCESS_CODE_KEY: the gate codes in database db:5432\/gh were sealed with another key than this instance's key, \/x\/keys\/access-codes.key \(ACCESS_CODE_KEY is not set/,
    );
  });
});

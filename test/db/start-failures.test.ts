// Why the service could not start, in one sentence with the fix: the translation table (pure),
// the real driver's and file system's errors where they can be made here, and the test runner's
// own check of DATABASE_URL.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import pg from 'pg';
import { prepareDataDir } from '../../src/db/data-dir.ts';
import {
  databaseTarget,
  explainDatabaseFailure,
  explainDataDirFailure,
  type DataDirFailure,
} from '../../src/db/start-failures.ts';
import { onPostgres } from '../helpers/harness.ts';
import { freePort } from '../helpers/process.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const target = databaseTarget('postgres://gatehouse:s3cret-pw@db.internal:6543/gh_prod');

/** A server's error as pg makes it (pg-protocol's DatabaseError: a code and a severity). */
function serverError(code: string, message: string): Error {
  return Object.assign(new pg.DatabaseError(message, 100, 'error'), { code, severity: 'FATAL' });
}

/** A socket's or DNS lookup's own error, as Node makes it (a code, no severity). */
function socketError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 10.0.0.1:6543`), { code, syscall: 'connect' });
}

describe('databaseTarget', () => {
  it('reads DATABASE_URL as the driver does, and keeps no password', () => {
    assert.deepEqual(target, { host: 'db.internal', port: 6543, database: 'gh_prod', user: 'gatehouse' });
    // No port: 5432; no database: the user's name; a socket directory in ?host=; percent-encoding undone.
    assert.deepEqual(databaseTarget('postgresql://app%40corp@[::1]/'), {
      host: '::1',
      port: 5432,
      database: 'app@corp',
      user: 'app@corp',
    });
    assert.equal(databaseTarget('postgres:///gh?host=/var/run/postgresql').host, '/var/run/postgresql');
    assert.equal(databaseTarget('postgres:///gh').host, 'localhost');
  });
});

describe('explainDatabaseFailure', () => {
  // Each common failure, and the sentence that names its fix.
  const table: [string, Error, RegExp][] = [
    [
      'a missing database (3D000)',
      serverError('3D000', 'database "gh_prod" does not exist'),
      /^database "gh_prod" does not exist on db\.internal:6543: create it \(createdb -h db\.internal -p 6543 -U gatehouse gh_prod\) or correct DATABASE_URL$/,
    ],
    [
      'a wrong password (28P01)',
      serverError('28P01', 'password authentication failed for user "gatehouse"'),
      /^PostgreSQL at db\.internal:6543 refused the password of user "gatehouse": check the user and password in DATABASE_URL$/,
    ],
    [
      'no pg_hba.conf entry (28000)',
      serverError(
        '28000',
        'no pg_hba.conf entry for host "10.1.1.1", user "gatehouse", database "gh_prod", no encryption',
      ),
      /^PostgreSQL at db\.internal:6543 does not let user "gatehouse" connect to database "gh_prod" \(no pg_hba\.conf entry for host .*\): check the user in DATABASE_URL \(the role must exist, and the server's pg_hba\.conf allow it from here\)$/,
    ],
    [
      'a role without CREATE (42501)',
      serverError('42501', 'permission denied for schema public'),
      /^user "gatehouse" may not set up database "gh_prod" on db\.internal:6543 \(permission denied for schema public\): the role needs CONNECT and CREATE on the database and CREATE on its schema public; simplest, make it the database's owner \(ALTER DATABASE gh_prod OWNER TO gatehouse\) or correct DATABASE_URL$/,
    ],
    [
      'too many connections (53300)',
      serverError('53300', 'sorry, too many clients already'),
      /^PostgreSQL at db\.internal:6543 has no connection free \(too many connections\): close idle clients or raise its max_connections \(each Gatehouse instance uses up to 22\), then start again$/,
    ],
    [
      'a server starting up (57P03)',
      serverError('57P03', 'the database system is starting up'),
      /is starting up or recovering .*: start again in a moment$/,
    ],
    [
      'connection refused',
      socketError('ECONNREFUSED'),
      /^no PostgreSQL is answering at db\.internal:6543 \(DATABASE_URL\): is it running, and listening there\? check the host and port in DATABASE_URL$/,
    ],
    [
      'an unknown host',
      socketError('ENOTFOUND'),
      /^the host "db\.internal" in DATABASE_URL is not known here \(DNS lookup failed\): check the host in DATABASE_URL$/,
    ],
    ['no DNS answer', socketError('EAI_AGAIN'), /^the host "db\.internal" in DATABASE_URL could not be looked up/],
    [
      'a host that never answers',
      socketError('ETIMEDOUT'),
      /^PostgreSQL at db\.internal:6543 \(DATABASE_URL\) did not answer in time: is it running, and reachable from this machine/,
    ],
    ['an unreachable network', socketError('EHOSTUNREACH'), /did not answer in time/],
    ['the driver timing out', new Error('Connection terminated due to connection timeout'), /did not answer in time/],
    [
      'a password the server asks for and the URL lacks',
      new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string'),
      /^PostgreSQL at db\.internal:6543 asks user "gatehouse" for a password and DATABASE_URL gives none: add it/,
    ],
    [
      'SSL asked of a server without it',
      new Error('The server does not support SSL connections'),
      /does not accept SSL connections: remove sslmode \(or ssl\) from DATABASE_URL/,
    ],
    // Anything else: where, and the code (or the driver's words).
    [
      'another server error',
      serverError('XX000', 'internal error'),
      /^cannot connect to PostgreSQL at db\.internal:6543\/gh_prod \(DATABASE_URL\): XX000$/,
    ],
    [
      'another driver error',
      new Error('something odd'),
      /^cannot connect to PostgreSQL at db\.internal:6543\/gh_prod \(DATABASE_URL\): something odd$/,
    ],
  ];
  for (const [what, error, sentence] of table) {
    it(`says ${what} in a sentence with the fix, never the password`, () => {
      const said = explainDatabaseFailure(error, target);
      assert.match(said, sentence);
      assert.doesNotMatch(said, /s3cret-pw|\n/);
    });
  }

  it('reads a server error by its SQLSTATE only when the server sent it (a timeout in a statement is not a connect timeout)', () => {
    assert.match(
      explainDatabaseFailure(serverError('57014', 'canceling statement due to statement timeout'), target),
      /^cannot connect to PostgreSQL at .*: 57014$/,
    );
    // A socket's code that happens to look like a SQLSTATE, without a severity, is not read as one.
    assert.doesNotMatch(explainDatabaseFailure({ code: '3D000' }, target), /does not exist/);
  });

  it('leaves out createdb options that are the defaults', () => {
    const said = explainDatabaseFailure(
      serverError('3D000', 'database "nope" does not exist'),
      databaseTarget('postgres://127.0.0.1/nope'),
    );
    assert.match(said, /\(createdb -h 127\.0\.0\.1 nope\)/);
  });

  it('reads what the real driver says for a refused connection and for a server that never answers', async () => {
    const refused = await new pg.Client({ host: '127.0.0.1', port: await freePort() }).connect().catch((e) => e);
    assert.match(explainDatabaseFailure(refused, target), /^no PostgreSQL is answering at/);

    // A server that accepts the connection and never says a word.
    const accepted: net.Socket[] = [];
    const silent = net.createServer((socket) => accepted.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    const client = new pg.Client({ host: '127.0.0.1', port, connectionTimeoutMillis: 300 });
    const timedOut = await client.connect().catch((e) => e);
    for (const socket of accepted) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
    assert.match(explainDatabaseFailure(timedOut, target), /did not answer in time/);
  });

  if (onPostgres) {
    it('reads what the real server says for a database that does not exist', async () => {
      const url = new URL(process.env.DATABASE_URL!);
      url.pathname = '/gatehouse_no_such_db';
      const missing = await new pg.Client({ connectionString: url.toString() }).connect().catch((e) => e);
      assert.match(
        explainDatabaseFailure(missing, databaseTarget(url.toString())),
        /^database "gatehouse_no_such_db" does not exist on .*: create it \(createdb .* gatehouse_no_such_db\) or correct DATABASE_URL$/,
      );
    });
  }
});

describe('explainDataDirFailure', () => {
  const base: DataDirFailure = {
    code: 'EACCES',
    dataDir: '/srv/gh',
    existing: '/srv/gh',
    existingIsDirectory: true,
    uid: 1001,
  };
  const table: [string, Partial<DataDirFailure>, string][] = [
    [
      'a file where the directory should be',
      { code: 'EEXIST', existingIsDirectory: false },
      'DATA_DIR /srv/gh is a file, not a directory: name a directory (it is created if missing)',
    ],
    [
      'a file where a parent should be',
      { code: 'ENOTDIR', dataDir: '/srv/gh/data', existing: '/srv/gh', existingIsDirectory: false },
      'DATA_DIR /srv/gh/data cannot be created: /srv/gh is a file, not a directory: name a directory (it is created if missing)',
    ],
    [
      'a directory of another user',
      { code: 'EACCES' },
      'DATA_DIR /srv/gh is not writable by this user (uid 1001): change its owner or choose another DATA_DIR',
    ],
    [
      'a directory that may not be written',
      { code: 'EPERM', uid: null },
      'DATA_DIR /srv/gh is not writable by this user: change its owner or choose another DATA_DIR',
    ],
    [
      'a parent in which it may not be made',
      { code: 'EACCES', dataDir: '/srv/gh/data', existing: '/srv' },
      'DATA_DIR /srv/gh/data cannot be created: /srv is not writable by this user (uid 1001): create it and give it to this user, or choose another DATA_DIR',
    ],
    [
      'a full disk',
      { code: 'ENOSPC' },
      'DATA_DIR /srv/gh is on a full disk (ENOSPC): free some space there or choose another DATA_DIR',
    ],
    [
      'a used-up quota',
      { code: 'EDQUOT' },
      'DATA_DIR /srv/gh is on a disk where this user (uid 1001) has used up the quota (EDQUOT): free some space or choose another DATA_DIR',
    ],
    [
      'a read-only file system',
      { code: 'EROFS' },
      'DATA_DIR /srv/gh is on a read-only file system (EROFS): choose a DATA_DIR on a writable one',
    ],
    [
      'a path too long',
      { code: 'ENAMETOOLONG' },
      'DATA_DIR /srv/gh is too long a path (ENAMETOOLONG): choose a shorter DATA_DIR',
    ],
    ['anything else', { code: 'EIO' }, 'DATA_DIR /srv/gh is not writable (EIO): choose another DATA_DIR'],
  ];
  for (const [what, facts, sentence] of table) {
    it(`says ${what} with the fix`, () => {
      assert.equal(explainDataDirFailure({ ...base, ...facts }), sentence);
    });
  }

  it('finds, on the real file system, the file that stands where the directory or a parent should be', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-datadir-'));
    try {
      const file = path.join(dir, 'a-file');
      fs.writeFileSync(file, '');
      assert.throws(
        () => prepareDataDir(file),
        (error: Error) =>
          error.name === 'DataDirError' &&
          error.message === `DATA_DIR ${file} is a file, not a directory: name a directory (it is created if missing)`,
      );
      assert.throws(
        () => prepareDataDir(path.join(file, 'x', 'data')),
        (error: Error) =>
          error.message ===
          `DATA_DIR ${path.join(file, 'x', 'data')} cannot be created: ${file} is a file, not a directory: name a directory (it is created if missing)`,
      );
      // A directory it can use, too long a path for the embedded database's socket.
      const long = path.join(dir, 'x'.repeat(100));
      assert.throws(
        () => prepareDataDir(long),
        (error: Error) =>
          error.message ===
          `DATA_DIR ${long} is too long a path for the database socket (at most ~85 characters): choose a shorter DATA_DIR`,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('npm test with a DATABASE_URL it cannot use', () => {
  /** scripts/test.mjs with this DATABASE_URL (it stops at its database check, before running any test). */
  const runTests = (databaseUrl: string) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [path.join(ROOT, 'scripts/test.mjs'), 'test/no-such.test.ts'], {
        env: { ...process.env, DATABASE_URL: databaseUrl },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (c) => (stderr += c));
      child.on('exit', (code) => resolve({ code, stderr }));
    });

  it('says it in the same sentence as the service', async () => {
    const port = await freePort();
    const { code, stderr } = await runTests(`postgres://postgres:s3cret-pw@127.0.0.1:${port}/test`);
    assert.equal(code, 1);
    assert.equal(
      stderr,
      `test: no PostgreSQL is answering at 127.0.0.1:${port} (DATABASE_URL): is it running, and listening there? check the host and port in DATABASE_URL\n`,
    );
  });

  if (onPostgres) {
    it('names a missing database and the createdb that makes it', async () => {
      const url = new URL(process.env.DATABASE_URL!);
      url.pathname = '/gatehouse_no_such_db';
      const { code, stderr } = await runTests(url.toString());
      assert.equal(code, 1);
      assert.match(
        stderr,
        /^test: database "gatehouse_no_such_db" does not exist on .*: create it \(createdb .*gatehouse_no_such_db\) or correct DATABASE_URL\n$/,
      );
    });
  }
});

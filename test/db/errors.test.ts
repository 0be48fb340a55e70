// Which errors mean "the database cannot serve right now" (503 with Retry-After), and which do
// not; real errors from the driver where they can be made here, their shapes otherwise.
import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import pg from 'pg';
import { databaseUnavailable } from '../../src/db/errors.ts';
import { normalizeError } from '../../src/http/errors.ts';
import { problemBody } from '../../src/http/problem.ts';
import { freePort } from '../helpers/process.ts';

/** A server's error as pg makes it (pg-protocol's DatabaseError). */
function serverError(code: string, message = 'canceling statement due to lock timeout'): Error {
  const error = new pg.DatabaseError(message, 100, 'error') as pg.DatabaseError & { code: string; severity: string };
  error.code = code;
  error.severity = 'ERROR';
  return error;
}

describe('databaseUnavailable', () => {
  it('recognises a server that is shutting down, starting, out of connections, or ended the session', () => {
    for (const code of [
      '57P01',
      '57P02',
      '57P03',
      '25006',
      '53300',
      '25P03',
      '08000',
      '08003',
      '08006',
      '08001',
      '08P01',
    ]) {
      const found = databaseUnavailable(serverError(code, 'terminating connection due to administrator command'));
      assert.ok(found, code);
      assert.equal(found.status, 503, code);
      assert.equal(found.code, 'DATABASE_UNAVAILABLE', code);
      assert.match(found.headers['retry-after'] ?? '', /^[1-9]\d*$/, code);
    }
  });

  it('recognises a statement timeout and a lock timeout, as busy rather than unreachable', () => {
    const statement = databaseUnavailable(serverError('57014', 'canceling statement due to statement timeout'));
    const lock = databaseUnavailable(serverError('55P03', 'canceling statement due to lock timeout'));
    assert.ok(statement && lock);
    assert.match(lock.message, /did not answer in time/);
    assert.equal(lock.headers['retry-after'], '2');
    assert.match(databaseUnavailable(new Error('Connection terminated unexpectedly'))!.message, /cannot be reached/);
  });

  it('leaves every other server error alone: constraint violations, syntax, deadlocks (translated by the faces)', () => {
    for (const code of ['23505', '23503', '42601', '42P01', '40P01', '40001', '22P02', 'XX000']) {
      assert.equal(
        databaseUnavailable(serverError(code, 'duplicate key value violates unique constraint')),
        null,
        code,
      );
    }
  });

  it('recognises a connection refused, as the driver reports it', async () => {
    const client = new pg.Client({
      host: '127.0.0.1',
      port: await freePort(),
      user: 'postgres',
      database: 'postgres',
    });
    const error = await client.connect().then(
      () => null,
      (e: unknown) => e,
    );
    assert.equal((error as NodeJS.ErrnoException).code, 'ECONNREFUSED');
    assert.ok(databaseUnavailable(error));
  });

  it('recognises a pool that could not give a connection in time', async () => {
    // A server that accepts and never answers: the connection attempt times out.
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const pool = new pg.Pool({
      host: '127.0.0.1',
      port: (silent.address() as net.AddressInfo).port,
      user: 'postgres',
      database: 'postgres',
      connectionTimeoutMillis: 200,
    });
    try {
      const error = await pool.query('select 1').then(
        () => null,
        (e: unknown) => e,
      );
      assert.match(
        (error as Error).message,
        /^Connection terminated due to connection timeout|^timeout exceeded when trying to connect/,
      );
      assert.ok(databaseUnavailable(error));
    } finally {
      await pool.end().catch(() => {});
      silent.close();
    }
  });

  it("recognises the driver's messages for a lost connection", () => {
    for (const message of [
      'timeout exceeded when trying to connect',
      'Connection terminated unexpectedly',
      'Connection terminated due to connection timeout',
      'Connection terminated',
      'Client has encountered a connection error and is not queryable',
      'Client was closed and is not queryable',
      'Cannot use a pool after calling end on the pool',
    ]) {
      assert.ok(databaseUnavailable(new Error(message)), message);
    }
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', errno: -104, syscall: 'read' });
    assert.ok(databaseUnavailable(reset));
  });

  it('leaves alone what is not the database: a client that aborted its upload, S3, programming errors, non-errors', () => {
    // Node's http reports a client that went away mid-body as ECONNRESET without a syscall.
    assert.equal(databaseUnavailable(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })), null);
    assert.equal(
      databaseUnavailable(
        Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED', syscall: 'connect', $metadata: {} }),
      ),
      null,
    );
    assert.equal(databaseUnavailable(new TypeError("Cannot read properties of undefined (reading 'id')")), null);
    assert.equal(databaseUnavailable(new Error('Connection to the webhook terminated')), null);
    for (const value of [null, undefined, 'Connection terminated', 42, { code: 57014 }])
      assert.equal(databaseUnavailable(value), null);
  });
});

describe('normalizeError on database unavailability', () => {
  it('is a 503 with Retry-After and a detail without SQL, the server message or values', () => {
    const error = serverError('55P03', 'canceling statement due to lock timeout');
    Object.assign(error, {
      detail: 'Key (code)=(1234) already exists.',
      where: 'SQL statement "select * from facilities"',
      query: 'select * from facilities',
    });
    const normalized = normalizeError(error);
    assert.equal(normalized.status, 503);
    assert.equal(normalized.code, 'DATABASE_UNAVAILABLE');
    assert.equal(normalized.headers['retry-after'], '2');
    assert.equal(normalized.unexpected, undefined);
    const body = JSON.stringify(problemBody(normalized, 'trace-1'));
    for (const leak of ['select', 'facilities', '1234', 'lock timeout', '55P03'])
      assert.ok(!body.includes(leak), `${leak} in ${body}`);
  });

  it('still gives 500 for an unexpected error', () => {
    assert.equal(normalizeError(new Error('boom')).status, 500);
  });
});

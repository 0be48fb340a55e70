// A pooled connection lost while it is checked out (issue 23, item 1), in this process, on either
// database: pg's Client emits 'error' when its socket ends, and pg-pool listens only while a client
// is idle; without a listener of the service's own the 'error' ends the process (here: the test
// runner's uncaught exception). The statement fails with an error that means 503, the loss is
// reported once, and the pool serves the next statement on a new connection.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { databaseUnavailable } from '../../src/db/errors.ts';
import { createTestDatabase, databaseLabel, type TestDatabase } from '../helpers/harness.ts';

/** The socket under a checked-out client, cut as a network or a server would cut it. */
const cut = (client: pg.PoolClient) =>
  (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();

describe(`a pooled connection lost while checked out (${databaseLabel})`, () => {
  let database: TestDatabase;
  let opened: Database;
  const losses: Error[] = [];
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);

  before(async () => {
    database = await createTestDatabase();
    opened = await openDatabase(loadConfig({ ...database.env, LOG_LEVEL: 'silent' }), {
      role: 'owner',
      command: 'test',
      poolSize: 4,
    });
    opened.onConnectionLost((error) => losses.push(error));
    process.on('uncaughtException', onUncaught);
  });
  after(async () => {
    process.off('uncaughtException', onUncaught);
    await opened?.close();
    await database?.drop();
  });

  it('fails its statement with a 503 error, is reported once, and the pool serves the next on a new connection', async () => {
    const client = await opened.pool.connect();
    const withIt = opened.pool.totalCount;
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    const running = client.query('select count(*) from generate_series(1, 2000000)');
    cut(client);
    const error = await running.then(
      () => assert.fail('the statement should have failed'),
      (failure: unknown) => failure,
    );
    const answer = databaseUnavailable(error);
    assert.equal(answer?.status, 503, String(error));
    assert.match(String(answer?.headers['retry-after']), /^[1-9]\d*$/);
    // A later statement on the lost client fails the same way, without another 'error'.
    assert.equal(databaseUnavailable(await client.query('select 1').catch((failure: unknown) => failure))?.status, 503);
    client.release();

    assert.equal(losses.length, 1, losses.map((e) => e.message).join('; '));
    assert.deepEqual(uncaught, []);
    assert.equal(opened.pool.totalCount, withIt - 1, 'the lost client is not back in the pool');
    assert.deepEqual(
      (await opened.db.selectNoFrom((eb) => eb.val(1).as('one')).execute()).map((r) => Number(r.one)),
      [1],
    );
    if (opened.kind === 'postgres') {
      const again = await opened.pool.query<{ pid: number }>('select pg_backend_pid() as pid');
      assert.notEqual(again.rows[0]!.pid, rows[0]!.pid, 'a new connection');
    }
  });
});

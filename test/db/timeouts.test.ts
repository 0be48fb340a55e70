// The pool's limits on PostgreSQL: every connection carries the configured statement, lock and
// idle-in-transaction timeouts; a lock wait gives up after the lock timeout; migrations are
// exempt (waiting for another instance's migrations is not a stuck database) and give their
// connection back with the limits restored.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { databaseUnavailable } from '../../src/db/errors.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createTestDatabase, onPostgres, type TestDatabase } from '../helpers/harness.ts';

const LOCK_TIMEOUT_MS = 300;

// PostgreSQL only: PGlite enforces no statement or lock timeout; on the embedded database the
// request deadline and the worker's idle limit bound a wait (test/reliability/database.test.ts).
if (onPostgres)
  describe('the limits of the pool on PostgreSQL', () => {
    let database: TestDatabase;
    let opened: Database;

    before(async () => {
      database = await createTestDatabase();
      const config = loadConfig({
        ...database.env,
        LOG_LEVEL: 'silent',
        DATABASE_STATEMENT_TIMEOUT_MS: '4000',
        DATABASE_LOCK_TIMEOUT_MS: String(LOCK_TIMEOUT_MS),
        DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '6000',
      });
      opened = await openDatabase(config, { role: 'owner', command: 'test', poolSize: 4 });
    });
    after(async () => {
      await opened?.close();
      await database?.drop();
    });

    const settings = async (client: pg.PoolClient | pg.Pool) => {
      const { rows } = await client.query<{ name: string; setting: string }>(
        "select name, setting from pg_settings where name in ('statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout') order by name",
      );
      return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
    };

    it('sets the three timeouts on every connection', async () => {
      const clients = await Promise.all([opened.pool.connect(), opened.pool.connect(), opened.pool.connect()]);
      try {
        for (const client of clients) {
          assert.deepEqual(await settings(client), {
            idle_in_transaction_session_timeout: '6000',
            lock_timeout: String(LOCK_TIMEOUT_MS),
            statement_timeout: '4000',
          });
        }
      } finally {
        for (const client of clients) client.release();
      }
    });

    it('gives up a lock wait after the lock timeout, as a database unavailability', async () => {
      const holder = new pg.Client({ connectionString: database.env.DATABASE_URL });
      await holder.connect();
      try {
        await holder.query('begin');
        await holder.query('lock table facilities in access exclusive mode');
        const started = Date.now();
        const error = await opened.pool.query('select count(*) from facilities').then(
          () => null,
          (e: unknown) => e,
        );
        assert.equal((error as { code?: string })?.code, '55P03');
        assert.ok(databaseUnavailable(error));
        assert.ok(Date.now() - started < LOCK_TIMEOUT_MS + 2000);
      } finally {
        await holder.query('rollback');
        await holder.end();
      }
    });

    it("lets migrations wait for another instance's migrations longer than the lock timeout, then restores the limits", async () => {
      const other = new pg.Client({ connectionString: database.env.DATABASE_URL });
      await other.connect();
      try {
        await other.query('select pg_advisory_lock(727001)');
        const running = migrate(opened.pool);
        await new Promise((r) => setTimeout(r, LOCK_TIMEOUT_MS * 3));
        await other.query('select pg_advisory_unlock(727001)');
        const result = await running;
        assert.deepEqual(result.applied, []);
      } finally {
        await other.end();
      }
      // Every connection the migration could have used is back with the pool's limits.
      const clients = await Promise.all(Array.from({ length: 4 }, () => opened.pool.connect()));
      try {
        for (const client of clients) assert.equal((await settings(client)).lock_timeout, String(LOCK_TIMEOUT_MS));
      } finally {
        for (const client of clients) client.release();
      }
    });
  });

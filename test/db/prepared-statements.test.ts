// Named prepared statements belong to the connection that prepared them, on either database. On
// the embedded one every connection is a session of one backend: the worker gives each its own
// namespace, and drops a connection's statements when it closes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { createTestDatabase, databaseLabel, onPostgres, type TestDatabase } from '../helpers/harness.ts';

let database: TestDatabase;
let opened: Database;

before(async () => {
  database = await createTestDatabase();
  opened = await openDatabase(loadConfig({ ...database.env, LOG_LEVEL: 'silent' }), {
    role: 'owner',
    command: 'test',
    poolSize: 8,
  });
});
after(async () => {
  await opened.close();
  await database.drop();
});

/** Our statement names on the backend (on the embedded one: every connection's). */
async function preparedNames(client: pg.PoolClient): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    "select name from pg_prepared_statements where name like '%same_name%' order by name",
  );
  return rows.map((r) => r.name);
}

describe(`named prepared statements (${databaseLabel})`, () => {
  it('two pool connections prepare the same name with different text, and both run their own', async () => {
    const a = await opened.pool.connect();
    const b = await opened.pool.connect();
    try {
      // Before the fix, b's Parse failed on the embedded database: prepared statement "same_name" already exists.
      assert.deepEqual((await a.query({ name: 'same_name', text: 'select $1::int + 1 as v', values: [1] })).rows, [
        { v: 2 },
      ]);
      assert.deepEqual(
        (await b.query({ name: 'same_name', text: "select $1::text || '!' as v", values: ['b'] })).rows,
        [{ v: 'b!' }],
      );
      // Again, alternating: each connection keeps running its own statement.
      for (let i = 0; i < 3; i++) {
        assert.deepEqual((await a.query({ name: 'same_name', text: 'select $1::int + 1 as v', values: [i] })).rows, [
          { v: i + 1 },
        ]);
        assert.deepEqual(
          (await b.query({ name: 'same_name', text: "select $1::text || '!' as v", values: [`b${i}`] })).rows,
          [{ v: `b${i}!` }],
        );
      }
    } finally {
      a.release();
      b.release();
    }
  });

  it('under concurrency: 8 connections run the same-named statement at once, many times', async () => {
    const runs = Array.from({ length: 8 }, async (_, n) => {
      const client = await opened.pool.connect();
      try {
        for (let i = 0; i < 25; i++) {
          const { rows } = await client.query({
            name: 'same_name_busy',
            text: `select $1::int * ${n + 1} as v`,
            values: [i],
          });
          assert.deepEqual(rows, [{ v: i * (n + 1) }]);
        }
      } finally {
        client.release();
      }
    });
    await Promise.all(runs);
  });

  it('drops the statements of a connection that closes', async () => {
    const client = await opened.pool.connect();
    const watcher = await opened.pool.connect();
    try {
      const before = await preparedNames(watcher);
      await client.query({ name: 'same_name_closing', text: 'select 1 as v' });
      client.release(true); // ends that connection
      // On a server the backend's statements end with it; on the embedded database the worker
      // closes them for it, a moment later.
      const deadline = Date.now() + 5000;
      let names = await preparedNames(watcher);
      while (names.some((n) => n.endsWith('same_name_closing')) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        names = await preparedNames(watcher);
      }
      assert.ok(!names.some((n) => n.endsWith('same_name_closing')), `left behind: ${names.join(', ')}`);
      assert.deepEqual(
        names.filter((n) => !before.includes(n)),
        [],
      );
    } finally {
      watcher.release();
    }
  });

  if (!onPostgres) {
    it("does not let a connection run another connection's statement: its Bind fails as on a server", async () => {
      const a = await opened.pool.connect();
      const b = await opened.pool.connect();
      try {
        await a.query({ name: 'same_name_describe', text: 'select 1 as v' });
        // b has not prepared it: on a server its Bind would fail; here it must fail the same way.
        const connection = (b as unknown as { connection: { parsedStatements: Record<string, string> } }).connection;
        connection.parsedStatements.same_name_describe = 'select 1 as v'; // make pg skip the Parse
        await assert.rejects(b.query({ name: 'same_name_describe', text: 'select 1 as v' }), /does not exist/);
      } finally {
        a.release();
        b.release(true);
      }
    });
  }
});

describe(`Database.prepared: a hot statement planned once per connection (${databaseLabel})`, () => {
  it('runs each text as one named statement, parsed once and run again by its name, each answering its own rows', async () => {
    const single = await openDatabase(loadConfig({ ...database.env, LOG_LEVEL: 'silent' }), {
      role: 'owner',
      command: 'test',
      poolSize: 1, // every statement on the one connection, which then holds both
    });
    try {
      const plus = "select $1::int + 1 as v, 'prepared-marker' as m";
      const times = "select $1::int * 10 as v, 'prepared-marker' as m";
      for (let i = 0; i < 8; i++) {
        assert.deepEqual(await single.prepared({ sql: plus, parameters: [i] }), [{ v: i + 1, m: 'prepared-marker' }]);
        assert.deepEqual(await single.prepared({ sql: times, parameters: [i] }), [{ v: i * 10, m: 'prepared-marker' }]);
      }
      const { rows } = await single.pool.query<{ name: string; statement: string; runs: number }>(
        `select name, statement, generic_plans + custom_plans as runs from pg_prepared_statements
          where statement like '%prepared-marker%' order by statement`,
      );
      assert.deepEqual(
        rows.map((r) => [r.statement, r.runs]),
        [
          [times, 8],
          [plus, 8],
        ],
      );
      assert.ok(
        rows.every((r) => /gh_[0-9a-f]{32}$/.test(r.name)),
        rows.map((r) => r.name).join(),
      );
      assert.notEqual(rows[0]!.name, rows[1]!.name);
    } finally {
      await single.close();
    }
  });
});

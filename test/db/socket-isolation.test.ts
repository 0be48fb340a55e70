// A session is a connection's own (issue 27, item 2). On the embedded database every connection of
// the socket DATA_DIR/.s.PGSQL.5432 is a session of one backend: a `SET search_path` made by one
// client (pg_dump's set_config) reached the service's connections, which then answered 500
// `relation "applications" does not exist` until a restart. Here a client sets what a session can
// set — search_path by SET and by set_config, directly and through a function, a role, a temporary
// table named like the service's — and keeps its connection open; the service's tokens and reads
// still work, the client keeps its own settings, and a fresh connection sees the defaults. On
// PostgreSQL the client connects to the test database: the same assertions hold there.
//
// And a client the embedded engine cannot serve is refused without harm: what pg_dump 15 does
// (its set_config, then an exit without a goodbye when it refuses the server's version), an unknown message type (which froze the
// database's thread), a replication start-up, another protocol version, bytes that are not the
// protocol, COPY FROM STDIN (which failed with "protocol synchronization was lost" and handed the
// error to another connection). The service serves after each.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { describe, it } from 'node:test';
import pg from 'pg';
import { dataDirLayout, EMBEDDED_PORT } from '../../src/db/data-dir.ts';
import { ok, typedClient } from '../helpers/client.ts';
import { appFixture, databaseLabel, onPostgres, type TestApp } from '../helpers/harness.ts';
import { operatorToken } from '../helpers/tenants.ts';

const t = appFixture();

/** What a tool (psql, pg_dump, a script) connects to: the socket of the data directory, or the test database. */
const clientConfig = (): pg.ClientConfig =>
  onPostgres
    ? { connectionString: t.config.databaseUrl! }
    : { host: dataDirLayout(t.config.dataDir).socketDir, port: EMBEDDED_PORT, user: 'postgres', database: 'postgres' };

async function connect(): Promise<pg.Client> {
  const client = new pg.Client(clientConfig());
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** The service at work: a token issued (it reads `applications`), an admin read, the availability check. */
async function serviceServes(app: TestApp): Promise<void> {
  const token = await operatorToken(app);
  const accounts = await ok(typedClient(app, token).GET('/admin/accounts'), 200);
  assert.ok(Array.isArray(accounts));
  const availability = await app.app.inject({ method: 'GET', url: '/availability' });
  assert.equal(availability.statusCode, 200, availability.body);
}

const session = async (client: pg.Client) =>
  (
    await client.query<{ search_path: string; user: string }>(
      'select current_setting($1) as search_path, current_user as user',
      ['search_path'],
    )
  ).rows[0]!;

describe(`a socket client's session is its own (${databaseLabel})`, () => {
  it('SET search_path, set_config, a function that sets it, SET ROLE and a temporary table reach no other connection', async () => {
    const before = await connect();
    const defaults = await session(before);
    await before.end();

    const role = `gh_isolation_${randomBytes(3).toString('hex')}`;
    const client = await connect();
    try {
      await client.query(`create role ${role}`);
      await client.query(`grant usage on schema public to ${role}`);
      // pg_dump's first statement, and psql's.
      await client.query('SET search_path = nothing');
      await serviceServes(t);
      await client.query("select pg_catalog.set_config('search_path', '', false)");
      await serviceServes(t);
      assert.equal((await session(client)).search_path, '', 'the client keeps its own setting');
      // A function whose call does not say what it sets.
      await client.query(
        "create function pg_temp.quietly() returns void language plpgsql as $$ begin perform pg_catalog.set_config('search_path', 'nowhere', false); end $$",
      );
      await client.query('select pg_temp.quietly()');
      await serviceServes(t);
      assert.equal((await session(client)).search_path, 'nowhere');
      // A temporary table named like the service's (the token endpoint reads `applications`).
      await client.query('create temp table applications (id int)');
      await client.query(`SET ROLE ${role}`);
      await serviceServes(t);
      assert.deepEqual(
        await session(client),
        { search_path: 'nowhere', user: role },
        'the client is still who it said',
      );

      // A connection made now starts from the defaults.
      const fresh = await connect();
      assert.deepEqual(await session(fresh), defaults);
      await fresh.end();
      // The service's own pool, straight: its sessions are the defaults too.
      const { rows } = await t.services.database.pool.query(
        'select current_setting($1) as search_path, current_user as user',
        ['search_path'],
      );
      assert.deepEqual(rows[0], defaults);
      // And the client's changes still hold after all of that went through the backend.
      assert.deepEqual(await session(client), { search_path: 'nowhere', user: role });
    } finally {
      await client.query('RESET ROLE').catch(() => {});
      await client.end();
      const cleanup = await connect();
      await cleanup.query(`drop owned by ${role}`).catch(() => {});
      await cleanup.query(`drop role if exists ${role}`);
      await cleanup.end();
    }
  });
});

if (!onPostgres)
  describe('a client the embedded database cannot serve is refused without harm', () => {
    const socketPath = () => dataDirLayout(t.config.dataDir).socketPath;

    /**
     * Sends raw bytes on the socket, in one write (a second one after the server closed would fail
     * with EPIPE, and the client would drop the answer it had not read yet); resolves with what came
     * back once the server closed it (or after 5 s).
     */
    async function raw(chunks: Buffer[]): Promise<{ answer: string; closed: boolean }> {
      const socket = net.connect(socketPath());
      socket.on('error', () => {});
      let answer = Buffer.alloc(0);
      socket.on('data', (data) => (answer = Buffer.concat([answer, data])));
      const closed = new Promise<boolean>((resolve) => {
        socket.once('close', () => resolve(true));
        setTimeout(() => resolve(false), 5000).unref();
      });
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(Buffer.concat(chunks));
      const wasClosed = await closed;
      socket.destroy();
      return { answer: answer.toString('latin1'), closed: wasClosed };
    }

    const startup = (parameters: Record<string, string>, version = 196608) => {
      const body = Buffer.from(`${Object.entries(parameters).flat().join('\0')}\0\0`);
      const head = Buffer.alloc(8);
      head.writeInt32BE(8 + body.length, 0);
      head.writeInt32BE(version, 4);
      return Buffer.concat([head, body]);
    };
    const message = (type: string, body = Buffer.alloc(0)) => {
      const head = Buffer.alloc(5);
      head[0] = type.charCodeAt(0);
      head.writeInt32BE(4 + body.length, 1);
      return Buffer.concat([head, body]);
    };
    const user = { user: 'postgres', database: 'postgres' };

    it('a client that does what pg_dump 15 does before it refuses the server: sets its search_path, then drops the connection without a goodbye', async () => {
      // pg_dump's first statements, then its exit at the version check (no Terminate message): the
      // same harm as the real tool, without needing PostgreSQL's client tools for the embedded run.
      const dump = await connect();
      await dump.query("SELECT pg_catalog.set_config('search_path', '', false)");
      (dump as unknown as { connection: { stream: net.Socket } }).connection.stream.destroy();
      await serviceServes(t);
      const fresh = await connect();
      assert.match((await session(fresh)).search_path, /public/);
      await fresh.end();
    });

    it('an unknown message type, a replication start-up, another protocol version, bytes that are not the protocol', async () => {
      const cases: [string, Buffer[], RegExp][] = [
        ['unknown message type', [startup(user), message('z')], /invalid frontend message type 122/],
        [
          'replication start-up',
          [startup({ ...user, replication: 'database' }), message('Q', Buffer.from('IDENTIFY_SYSTEM\0'))],
          /serves no replication connections/,
        ],
        ['protocol 3.2', [startup(user, 196610)], /unsupported frontend protocol 3\.2/],
        ['protocol 2.0', [startup(user, 131072)], /unsupported frontend protocol 2\.0/],
        ['an HTTP request', [Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n')], /invalid length of startup packet/],
      ];
      for (const [what, chunks, refusal] of cases) {
        const { answer, closed } = await raw(chunks);
        assert.match(answer, refusal, what);
        assert.match(answer, /SFATAL/, what);
        assert.ok(closed, `${what}: the connection is closed`);
        await serviceServes(t);
      }
    });

    it('COPY FROM STDIN: an error for that statement; the connection and the others go on', async () => {
      const client = await connect();
      try {
        await client.query('create temp table copied (id int)');
        await assert.rejects(client.query('copy copied from stdin'), (error: pg.DatabaseError) => {
          assert.equal(error.code, '0A000');
          assert.match(error.message, /COPY FROM STDIN is not served by the embedded database's socket/);
          return true;
        });
        await serviceServes(t);
        assert.equal((await client.query('select 1 as one')).rows[0].one, 1, 'the client goes on');
      } finally {
        await client.end();
      }
    });
  });

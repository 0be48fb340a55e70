// A database that cannot serve, against the real server process: exports on any pooled
// connection under concurrency; a held lock, a database that is down and one that is frozen
// (PostgreSQL, through a TCP proxy that plays the network); a connection idle in a transaction
// on the embedded database's socket. Each answer must come in bounded time: 503 with
// Retry-After, never a hang or a 500; /health stays 200; /availability says what is down; the
// service is itself again when the database is.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { dataDirLayout, EMBEDDED_PORT } from '../../src/db/data-dir.ts';
import { event, postEvents } from '../events/helpers.ts';
import { createTestDatabase, databaseLabel, onPostgres, type TestDatabase } from '../helpers/harness.ts';
import { startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { seed } from '../helpers/seed.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { gatewayToken, provisionAccount, type ProvisionedAccount } from '../helpers/tenants.ts';

const EVENTS = 6000; // more than one export chunk (5,000 rows)

let database: TestDatabase;
let account: ProvisionedAccount;

before(async () => {
  database = await createTestDatabase();
  account = await seed(database.env, async (t) => {
    const provisioned = await provisionAccount(t, { facilities: 1 });
    const gateway = (await gatewayToken(t, provisioned.facilities[0]!.id)).token;
    for (let batch = 0; batch < EVENTS / 1000; batch++) {
      const events = Array.from({ length: 1000 }, (_, i) => event({ eventType: 18 }, 60 + batch * 1000 + i));
      const posted = await postEvents(t, gateway, events);
      assert.equal(posted.body.accepted, 1000, JSON.stringify(posted.body));
    }
    return provisioned;
  });
});
after(() => database.drop());

interface Answer {
  status: number;
  ms: number;
  headers: Headers;
  text: string;
}

/** A request that must answer within `limitMs` (else the test fails instead of hanging). */
async function timed(url: string, token: string | null, limitMs = 15_000): Promise<Answer> {
  const started = Date.now();
  const response = await fetch(url, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
    signal: AbortSignal.timeout(limitMs),
  });
  const text = await response.text();
  return { status: response.status, ms: Date.now() - started, headers: response.headers, text };
}

/** Polls until the route answers 200 (the service is itself again). */
async function recovers(url: string, token: string | null, withinMs = 20_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  let last = 0;
  while (Date.now() < deadline) {
    last = await timed(url, token, withinMs).then(
      (a) => a.status,
      () => 0,
    );
    if (last === 200) return;
    await sleep(200);
  }
  assert.fail(`${url} did not recover in ${withinMs} ms (last status ${last})`);
}

function assertRetryLater(answer: Answer, code: string) {
  assert.equal(answer.status, 503, answer.text);
  assert.match(String(answer.headers.get('retry-after')), /^[1-9]\d*$/);
  assert.match(String(answer.headers.get('content-type')), /^application\/problem\+json/);
  const body = JSON.parse(answer.text);
  assert.equal(body.code, code, answer.text);
  // No SQL, no server message, no driver internals.
  assert.doesNotMatch(
    answer.text,
    /\bselect\b|\bfrom\b|relation|55P03|57014|ECONN|pg_|lock timeout|statement timeout/i,
  );
}

describe(`exports on any pooled connection, under concurrency (${databaseLabel})`, () => {
  let server: ServerProcess;
  before(async () => {
    server = await startServerProcess(database.env);
  });
  after(() => server.kill());

  it('8 exports at once beside other readers all answer 200 with the same full CSV', async () => {
    const facility = account.facilities[0]!.id;
    const exportUrl = `${server.url}/gatewayevents/facilities/${facility}/export?sort=asc`;
    // Before the fix, on the embedded database, most failed: prepared statement "gwe_…" already exists.
    const [exports, readers] = await Promise.all([
      Promise.all(Array.from({ length: 8 }, () => timed(exportUrl, account.token, 120_000))),
      Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          timed(
            i % 2 === 0
              ? `${server.url}/gatewayevents/facilities/${facility}?pageSize=100&pageNumber=${i + 1}`
              : `${server.url}/facilities`,
            account.token,
            120_000,
          ),
        ),
      ),
    ]);
    assert.deepEqual(
      exports.map((a) => a.status),
      Array(8).fill(200),
      exports.map((a) => a.text.slice(0, 300)).join('\n'),
    );
    assert.deepEqual(
      readers.map((a) => a.status),
      Array(8).fill(200),
    );
    const lines = exports[0]!.text.split('\r\n').filter(Boolean);
    assert.equal(lines.length, EVENTS + 1, 'the header and every event');
    for (const answer of exports) assert.equal(answer.text, exports[0]!.text);
  });
});

if (onPostgres) {
  describe('PostgreSQL that cannot serve', () => {
    const LOCK_TIMEOUT_MS = 1500;
    const REQUEST_TIMEOUT_MS = 4000;
    let proxy: TcpProxy;
    let server: ServerProcess;
    let facilities: string;

    before(async () => {
      const direct = new URL(database.env.DATABASE_URL!);
      proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
      const viaProxy = new URL(direct);
      viaProxy.host = proxy.address;
      server = await startServerProcess({
        ...database.env,
        DATABASE_URL: viaProxy.toString(),
        DATABASE_LOCK_TIMEOUT_MS: String(LOCK_TIMEOUT_MS),
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      });
      facilities = `${server.url}/facilities`;
    });
    after(async () => {
      await server.kill();
      await proxy.close();
    });

    it('a lock held by another session: 503 with Retry-After in about the lock timeout, then serves again', async () => {
      assert.equal((await timed(facilities, account.token)).status, 200);
      const holder = new pg.Client({ connectionString: database.env.DATABASE_URL });
      await holder.connect();
      try {
        await holder.query('begin');
        await holder.query('lock table facilities in access exclusive mode');
        // Before the fix this waited as long as the lock was held (58 s measured).
        const blocked = await timed(facilities, account.token);
        assertRetryLater(blocked, 'DATABASE_UNAVAILABLE');
        assert.ok(
          blocked.ms >= LOCK_TIMEOUT_MS - 100 && blocked.ms < REQUEST_TIMEOUT_MS,
          `answered after ${blocked.ms} ms`,
        );
        assert.equal((await timed(`${server.url}/health`, null)).status, 200);
      } finally {
        await holder.query('rollback').catch(() => {});
        await holder.end();
      }
      await recovers(facilities, account.token);
    });

    it('down: 503 problem+json with Retry-After, /health 200, /availability names the database and jobs; back up: 200', async () => {
      proxy.setMode('down');
      try {
        const refused = await timed(facilities, account.token);
        assertRetryLater(refused, 'DATABASE_UNAVAILABLE');
        assert.ok(refused.ms < REQUEST_TIMEOUT_MS, `answered after ${refused.ms} ms`);
        assert.equal((await timed(`${server.url}/health`, null)).status, 200);
        const availability = await timed(`${server.url}/availability`, null);
        assert.equal(availability.status, 503);
        assert.match(String(availability.headers.get('retry-after')), /^[1-9]\d*$/);
        const checks = JSON.parse(availability.text).checks;
        assert.equal(checks.database, false);
        assert.equal(checks.jobs, false, 'nothing can run while the database is down');
      } finally {
        proxy.setMode('pass');
      }
      await recovers(facilities, account.token);
      await recovers(`${server.url}/availability`, null);
      const {
        database: databaseOk,
        migrations,
        jobs,
      } = JSON.parse((await timed(`${server.url}/availability`, null)).text).checks;
      assert.deepEqual({ database: databaseOk, migrations, jobs }, { database: true, migrations: true, jobs: true });
    });

    it('frozen (a partition): answers 503 with Retry-After within the request deadline, then serves again', async () => {
      proxy.setMode('freeze');
      try {
        // Before the fix this hung for as long as the network did.
        const frozen = await timed(facilities, account.token, REQUEST_TIMEOUT_MS + 5000);
        assert.equal(frozen.status, 503, frozen.text);
        assert.match(JSON.parse(frozen.text).code, /^(DEADLINE_EXCEEDED|DATABASE_UNAVAILABLE)$/);
        assertRetryLater(frozen, JSON.parse(frozen.text).code);
        assert.ok(frozen.ms < REQUEST_TIMEOUT_MS + 1500, `answered after ${frozen.ms} ms`);
        assert.equal((await timed(`${server.url}/health`, null, 2000)).status, 200);
        const availability = await timed(`${server.url}/availability`, null, REQUEST_TIMEOUT_MS + 2000);
        assert.equal(availability.status, 503);
        assert.equal(JSON.parse(availability.text).checks.database, false);
      } finally {
        proxy.setMode('pass');
      }
      await recovers(facilities, account.token);
      assert.equal(server.child.exitCode, null, 'the server is still running');
    });
  });
} else {
  describe('the embedded database held by a connection idle in a transaction', () => {
    const REQUEST_TIMEOUT_MS = 1500;
    const IDLE_IN_TRANSACTION_TIMEOUT_MS = 5000;
    let server: ServerProcess;

    before(async () => {
      server = await startServerProcess({
        ...database.env,
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: String(IDLE_IN_TRANSACTION_TIMEOUT_MS),
      });
    });
    after(() => server.kill());

    it('answers 503 with Retry-After at the deadline, and ends the idle connection so that the service serves again', async () => {
      const facilities = `${server.url}/facilities`;
      assert.equal((await timed(facilities, account.token)).status, 200);
      const layout = dataDirLayout(database.env.DATA_DIR!);
      const holder = new pg.Client({
        host: layout.socketDir,
        port: EMBEDDED_PORT,
        user: 'postgres',
        database: 'postgres',
      });
      const holderErrors: Error[] = [];
      holder.on('error', (error) => holderErrors.push(error));
      await holder.connect();
      const heldSince = Date.now();
      await holder.query('begin');
      await holder.query('select 1');
      // Every other connection of the socket now waits for this one.
      const blocked = await timed(facilities, account.token);
      assertRetryLater(blocked, 'DEADLINE_EXCEEDED');
      assert.ok(
        blocked.ms >= REQUEST_TIMEOUT_MS - 100 && blocked.ms < IDLE_IN_TRANSACTION_TIMEOUT_MS,
        `answered after ${blocked.ms} ms`,
      );
      assert.equal((await timed(`${server.url}/health`, null)).status, 200);
      const availability = await timed(`${server.url}/availability`, null);
      assert.equal(availability.status, 503);
      assert.equal(JSON.parse(availability.text).checks.database, false);

      // Idle in its transaction past the limit while others wait: ended, as PostgreSQL would.
      await recovers(facilities, account.token, IDLE_IN_TRANSACTION_TIMEOUT_MS + 10_000);
      assert.ok(Date.now() - heldSince >= IDLE_IN_TRANSACTION_TIMEOUT_MS - 100);
      await assert.rejects(holder.query('select 1'));
      assert.match(holderErrors.map((e) => e.message).join(' '), /idle-in-transaction timeout|Connection terminated/);
      await holder.end().catch(() => {});
      await recovers(`${server.url}/availability`, null);
    });
  });
}

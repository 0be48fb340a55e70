// A database connection lost while a statement is in flight, against the real server process under
// load (issue 23, item 1): a PostgreSQL restart or failover, pg_terminate_backend, a proxy's reset.
// Before the fix, pg's Client emitted 'error' ("Connection terminated unexpectedly", or the socket's
// ECONNRESET) on a checked-out connection, which had no listener: the process ended, 6 of 6 cuts.
// The process must survive every cut, answer 503 with Retry-After meanwhile (never a 500 or no
// answer), serve again within 5 s of the link's return, and keep every event batch it acknowledged.
// On PostgreSQL a TCP relay stands between the server and the database, and an admin connection
// terminates the service's backends; on the embedded database the relay stands on the database's
// Unix socket (the same hazard: the embedded pool speaks pg over it).
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import pg from 'pg';
import { dataDirLayout, EMBEDDED_PORT } from '../../src/db/data-dir.ts';
import { event } from '../events/helpers.ts';
import { createTestDatabase, databaseLabel, onPostgres, type TestDatabase } from '../helpers/harness.ts';
import { startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { seed } from '../helpers/seed.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { gatewayToken, provisionAccount } from '../helpers/tenants.ts';

const CUTS = 6;
const SERVES_AGAIN_WITHIN_MS = 5000;
const BATCH = 25;

let database: TestDatabase;
let reader: string;
let controller: string;
let facilityId: string;

before(async () => {
  database = await createTestDatabase();
  ({ reader, controller, facilityId } = await seed(database.env, async (t) => {
    const account = await provisionAccount(t, { facilities: 1 });
    const facility = String(account.facilities[0]!.id);
    return {
      reader: account.token,
      controller: (await gatewayToken(t, account.facilities[0]!.id)).token,
      facilityId: facility,
    };
  }));
});
after(() => database.drop());

interface Answer {
  kind: 'write' | 'read';
  status: number;
  startedAt: number;
}

/**
 * Event batches from a controller and reads by a PMS, each worker sending its next request when the
 * last is answered, until stopped. Every answer is judged as it comes: 200, or 503 problem+json with
 * Retry-After; anything else (a 500, no answer at all) is a failure.
 */
class Load {
  readonly acknowledged: string[] = [];
  readonly failures: string[] = [];
  readonly counts = new Map<number, number>();
  private readonly answers = new EventEmitter();
  private running = true;
  private readonly workers: Promise<void>[];
  private sent = 0;

  constructor(
    private readonly url: string,
    writers: number,
    readers: number,
  ) {
    this.answers.setMaxListeners(50);
    this.workers = [
      ...Array.from({ length: writers }, (_, i) => this.work(() => this.write(i))),
      ...Array.from({ length: readers }, (_, i) => this.work(() => this.read(i))),
    ];
  }

  /** The next answer that matches, to a request started at or after `since`; fails after `withinMs`. */
  async next(match: (answer: Answer) => boolean, since: number, withinMs: number): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const onAnswer = (answer: Answer) => {
        if (answer.startedAt < since || !match(answer)) return;
        clearTimeout(timer);
        this.answers.off('answer', onAnswer);
        resolve(answer);
      };
      // A timer of its own: events.once's abort listener is weak, and an AbortSignal.timeout that
      // nothing else holds may be collected before it fires.
      const timer = setTimeout(() => {
        this.answers.off('answer', onAnswer);
        reject(
          new Error(`no matching answer within ${withinMs} ms; failures: ${this.failures.slice(0, 5).join('; ')}`),
        );
      }, withinMs);
      this.answers.on('answer', onAnswer);
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }

  private async work(request: () => Promise<void>): Promise<void> {
    while (this.running) await request();
  }

  private async write(worker: number): Promise<void> {
    const batch = Array.from({ length: BATCH }, (_, i) => event({ eventId: `cut-${worker}-${this.sent}-${i}` }));
    this.sent++;
    const answer = await this.send('write', '/gateway/v1/events', controller, {
      method: 'POST',
      body: JSON.stringify({ events: batch }),
      headers: { 'content-type': 'application/json' },
    });
    if (answer?.status === 200) {
      const body = JSON.parse(answer.text);
      if (body.accepted + body.duplicates !== BATCH)
        this.failures.push(`a batch acknowledged without every event: ${answer.text.slice(0, 300)}`);
      this.acknowledged.push(...batch.map((e) => e.eventId as string));
    }
  }

  private async read(worker: number): Promise<void> {
    const target =
      worker % 2 === 0 ? `/gatewayevents/facilities/${facilityId}?pageSize=200&sort=desc` : '/facilities?pageSize=50';
    await this.send('read', target, reader, {});
  }

  private async send(
    kind: Answer['kind'],
    target: string,
    token: string,
    init: RequestInit,
  ): Promise<{ status: number; text: string } | null> {
    const startedAt = Date.now();
    let status: number;
    let text: string;
    try {
      const response = await fetch(`${this.url}${target}`, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(20_000),
      });
      status = response.status;
      text = await response.text();
      if (status === 503) {
        if (!/^[1-9]\d*$/.test(String(response.headers.get('retry-after'))))
          this.failures.push(`503 without Retry-After on ${target}: ${text.slice(0, 300)}`);
        if (!/^application\/problem\+json/.test(String(response.headers.get('content-type'))))
          this.failures.push(`503 not problem+json on ${target}`);
        if (/ECONN|terminated|\bselect\b|pg_/i.test(text))
          this.failures.push(`503 leaks the driver: ${text.slice(0, 300)}`);
      } else if (status !== 200)
        this.failures.push(`${status} on ${init.method ?? 'GET'} ${target}: ${text.slice(0, 300)}`);
    } catch (error) {
      // No answer at all: the process is gone, or it hung.
      this.failures.push(`no answer on ${target}: ${(error as Error).message}`);
      if (this.running) await new Promise((resolve) => setTimeout(resolve, 100)); // not a busy loop against a dead port
      return null;
    }
    this.counts.set(status, (this.counts.get(status) ?? 0) + 1);
    this.answers.emit('answer', { kind, status, startedAt } satisfies Answer);
    return { status, text };
  }
}

/** Runs `work` under load; the load stops however it ends. */
async function underLoad(url: string, workers: number, work: (load: Load) => Promise<void>): Promise<Load> {
  const load = new Load(url, workers, workers);
  try {
    await work(load);
  } finally {
    await load.stop();
  }
  return load;
}

/** The acknowledged events that are not in the database. */
async function missing(client: pg.Client, eventIds: string[]): Promise<string[]> {
  const { rows } = await client.query<{ id: string }>(
    'select distinct gwc_event_id as id from gateway_events where gwc_event_id = any($1)',
    [eventIds],
  );
  const stored = new Set(rows.map((row) => row.id));
  return eventIds.filter((id) => !stored.has(id));
}

/**
 * `cut` breaks the service's connections while a statement is in flight and returns the moment the
 * link is back; then a write and a read started after it must answer 200 within 5 s.
 */
async function cutUnderLoad(
  server: ServerProcess,
  load: Load,
  cuts: number,
  cut: (round: number) => Promise<number>,
): Promise<number[]> {
  const recoveries: number[] = [];
  for (let round = 1; round <= cuts; round++) {
    // An exit fails the round at once, with what the process said last.
    const exited = server.exited.then((code): never => {
      throw new Error(`the server exited (${code}) at cut ${round}:\n${server.output().slice(-2000)}`);
    });
    await Promise.race([
      exited,
      (async () => {
        // Traffic flows before each cut.
        await load.next((a) => a.status === 200 && a.kind === 'write', Date.now(), 20_000);
        const back = await cut(round);
        const [write, read] = await Promise.all([
          load.next((a) => a.kind === 'write' && a.status === 200, back, SERVES_AGAIN_WITHIN_MS),
          load.next((a) => a.kind === 'read' && a.status === 200, back, SERVES_AGAIN_WITHIN_MS),
        ]);
        assert.ok(write.status === 200 && read.status === 200);
        recoveries.push(Date.now() - back);
      })(),
    ]);
  }
  return recoveries;
}

function assertSurvived(server: ServerProcess, load: Load) {
  assert.equal(server.child.exitCode, null, `the server exited:\n${server.output().slice(-3000)}`);
  assert.deepEqual(load.failures, [], 'only 200 and 503 with Retry-After');
  assert.ok((load.counts.get(503) ?? 0) > 0, `the cuts failed statements: ${JSON.stringify([...load.counts])}`);
  assert.doesNotMatch(server.output(), /uncaught|unhandled/i);
}

if (onPostgres) {
  describe(`PostgreSQL connections lost mid-statement (${databaseLabel})`, () => {
    let proxy: TcpProxy;
    let server: ServerProcess;
    let admin: pg.Client;

    before(async () => {
      const direct = new URL(database.env.DATABASE_URL!);
      proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
      admin = new pg.Client({ connectionString: database.env.DATABASE_URL });
      await admin.connect();
    });
    // A server of its own for each test: one's crash does not fail the next.
    beforeEach(async () => {
      proxy.setMode('pass');
      const viaProxy = new URL(database.env.DATABASE_URL!);
      viaProxy.host = proxy.address;
      server = await startServerProcess({
        ...database.env,
        DATABASE_URL: viaProxy.toString(),
        RATE_LIMIT_PER_MINUTE: '1000000',
      });
    });
    afterEach(() => server.kill());
    after(async () => {
      await proxy.close();
      await admin.end();
    });

    it(`the relay cuts every connection ${CUTS} times mid-statement: the process lives, 503 meanwhile, serves again within 5 s, keeps every acknowledged batch`, async () => {
      let recoveries: number[] = [];
      const load = await underLoad(server.url, 4, async (load) => {
        recoveries = await cutUnderLoad(server, load, CUTS, async () => {
          await proxy.whenAwaitingReply();
          proxy.setMode('down');
          // The link stays down until the service has answered 503 to a request sent during the outage.
          await load.next((a) => a.status === 503, Date.now(), 10_000);
          proxy.setMode('pass');
          return Date.now();
        });
      });
      assertSurvived(server, load);
      assert.ok(
        recoveries.every((ms) => ms < SERVES_AGAIN_WITHIN_MS),
        `served again after ${recoveries.join(', ')} ms`,
      );
      assert.ok(load.acknowledged.length > 0);
      assert.deepEqual(await missing(admin, load.acknowledged), [], 'every acknowledged event is stored');
    });

    it('pg_terminate_backend of every service backend mid-statement: the process lives, 503 or 200, serves again within 5 s', async () => {
      let terminated = 0;
      const load = await underLoad(server.url, 4, (load) =>
        cutUnderLoad(server, load, 4, async () => {
          await proxy.whenAwaitingReply();
          const { rows } = await admin.query<{ pid: number }>(
            // The service's backends first (offset 0 keeps the query from being flattened), then each terminated.
            `select pid, pg_terminate_backend(pid) from (
               select pid from pg_stat_activity
                where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'
                offset 0) as service`,
          );
          terminated += rows.length;
          return Date.now();
        }).then(() => {}),
      );
      assert.ok(terminated > 0);
      assert.equal(server.child.exitCode, null, `the server exited:\n${server.output().slice(-3000)}`);
      assert.deepEqual(load.failures, [], 'only 200 and 503 with Retry-After');
      assert.deepEqual(await missing(admin, load.acknowledged), [], 'every acknowledged event is stored');
    });
  });
} else {
  describe(`embedded database connections lost mid-statement (${databaseLabel})`, () => {
    let proxy: TcpProxy;
    let server: ServerProcess;
    let socketPath: string;

    before(async () => {
      server = await startServerProcess({ ...database.env, RATE_LIMIT_PER_MINUTE: '1000000' });
      // The relay takes the socket's name; the server's socket, renamed, still accepts. Connections
      // the pool made before stay direct; every one it makes from now on is relayed.
      socketPath = dataDirLayout(database.env.DATA_DIR!).socketPath;
      const direct = path.join(path.dirname(socketPath), 'direct.sock');
      fs.renameSync(socketPath, direct);
      proxy = await startTcpProxy({ path: direct }, { path: socketPath });
    });
    after(async () => {
      await server.kill();
      await proxy.close();
    });

    it(`the relay on the Unix socket cuts every relayed connection ${CUTS} times mid-statement: the process lives, 503 meanwhile, serves again within 5 s, keeps every acknowledged batch`, async () => {
      let relayed = 0;
      let recoveries: number[] = [];
      const load = await underLoad(server.url, 6, async (load) => {
        recoveries = await cutUnderLoad(server, load, CUTS, async () => {
          await proxy.whenAwaitingReply();
          relayed += proxy.connections;
          proxy.setMode('down');
          // The statements in flight on the relayed connections fail: the next 503.
          await load.next((a) => a.status === 503, 0, 10_000);
          proxy.setMode('pass');
          return Date.now();
        });
      });
      assert.ok(relayed > 0, 'the pool made connections through the relay');
      assertSurvived(server, load);
      assert.ok(
        recoveries.every((ms) => ms < SERVES_AGAIN_WITHIN_MS),
        `served again after ${recoveries.join(', ')} ms`,
      );
      // Read back through the server's socket (the relay, passing).
      const client = new pg.Client({
        host: path.dirname(socketPath),
        port: EMBEDDED_PORT,
        user: 'postgres',
        database: 'postgres',
      });
      await client.connect();
      try {
        assert.ok(load.acknowledged.length > 0);
        assert.deepEqual(await missing(client, load.acknowledged), [], 'every acknowledged event is stored');
      } finally {
        await client.end();
      }
    });
  });
}

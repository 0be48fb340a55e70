// A job whose handler is running when the database goes away (a failover, a restart): pg-boss records
// the outcome (complete; fail, for a handler that threw) without awaiting the statement, so before the
// fix its rejection reached no one (an unhandled rejection: in the server, "a promise failed with no one
// to hear it") and the job stayed active until it expired, 15 minutes later. Now the outcome is tried
// again until the database answers: recorded within seconds of its return, nothing unheard. The queue
// runs on a pool of its own through a relay that cuts every connection (TCP to PostgreSQL; the
// embedded database's Unix socket).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { dataDirLayout, EMBEDDED_PORT } from '../../src/db/data-dir.ts';
import { JobQueue, type JobDefinition } from '../../src/jobs/queue.ts';
import { databaseLabel, onPostgres, startTestApp, type TestApp } from '../helpers/harness.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

let t: TestApp;
let proxy: TcpProxy;
let relayDir: string | null = null;
let pool: pg.Pool;
const unheard: unknown[] = [];
const hear = (reason: unknown) => unheard.push(reason);

before(async () => {
  t = await startTestApp();
  let connection: pg.PoolConfig;
  if (onPostgres) {
    const direct = new URL(t.config.databaseUrl!);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const viaProxy = new URL(direct);
    viaProxy.host = proxy.address;
    connection = { connectionString: viaProxy.toString() };
  } else {
    // pg finds a socket by its directory and port: the relay listens under that name in a directory of its own.
    relayDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-relay-'));
    proxy = await startTcpProxy(
      { path: dataDirLayout(t.config.dataDir).socketPath },
      { path: path.join(relayDir, `.s.PGSQL.${EMBEDDED_PORT}`) },
    );
    connection = { host: relayDir, port: EMBEDDED_PORT, user: 'postgres', database: 'postgres' };
  }
  // As the service's pool: a lost connection fails its statements, never the process (src/db/database.ts).
  class Listened extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      this.on('error', () => {});
    }
  }
  pool = new pg.Pool({ ...connection, max: 4, connectionTimeoutMillis: 5000, Client: Listened });
  pool.on('error', () => {});
  process.on('unhandledRejection', hear);
});
after(async () => {
  process.off('unhandledRejection', hear);
  await pool?.end();
  await proxy?.close();
  if (relayDir) fs.rmSync(relayDir, { recursive: true, force: true });
  await t?.close();
});

const stateOf = async (id: string) =>
  (await t.services.database.pool.query<{ state: string }>('select state from pgboss.job where id = $1', [id])).rows[0]
    ?.state;

it(`a job's outcome is recorded once the database is back, when it went away while the handler ran (${databaseLabel})`, async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const running = new Set<string>();
  const handler =
    (outcome: 'completes' | 'throws'): JobDefinition['handle'] =>
    async () => {
      running.add(outcome);
      await held;
      if (outcome === 'throws') throw new Error('the handler failed');
    };
  const definitions: JobDefinition[] = [
    { name: 'test.outcome-completes', batchSize: 1, handle: handler('completes') },
    { name: 'test.outcome-throws', batchSize: 1, queue: { retryLimit: 0 }, handle: handler('throws') },
  ];
  const queue = new JobQueue(pool, t.services.logger, { supervise: true });
  try {
    await queue.start(definitions);
    const completes = (await queue.send('test.outcome-completes', {}))!;
    const throws = (await queue.send('test.outcome-throws', {}))!;
    const deadline = Date.now() + 20_000;
    while (running.size < 2) {
      assert.ok(Date.now() < deadline, 'the handlers did not start');
      await sleep(50);
    }

    // Every connection cut while both handlers run; they end during the outage.
    proxy.setMode('down');
    release();
    await sleep(1500);
    assert.equal(await stateOf(completes), 'active', 'not recorded while the database is unreachable');
    assert.equal(await stateOf(throws), 'active');

    proxy.setMode('pass');
    const back = Date.now();
    while ((await stateOf(completes)) !== 'completed' || (await stateOf(throws)) !== 'failed') {
      assert.ok(
        Date.now() - back < 5000,
        `outcomes not recorded 5 s after the return: ${await stateOf(completes)}, ${await stateOf(throws)}`,
      );
      await sleep(50);
    }
    assert.deepEqual(unheard, [], 'no promise failed unheard');
    assert.match(t.logs.text, /a job's outcome cannot be recorded while the database does not answer/);
  } finally {
    release();
    proxy.setMode('pass');
    await queue.stop();
  }
});

// A job whose folder changed keeps what pg-boss persisted under its old name from going astray
// (issue 24: auctions.deliver-notifications became support.deliver-notifications). A database as an
// earlier build left it — the old queue with a schedule and a queued wake-up — is started by this
// build: the old schedule is gone and the queued job is worked (the notification is delivered).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import PgBoss from 'pg-boss';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startServices, type Services } from '../../src/services.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../auctions/webhook-receiver.ts';
import { createTestDatabase, LogCapture, type TestDatabase } from '../helpers/harness.ts';

const OLD = 'auctions.deliver-notifications';
let database: TestDatabase;
let hook: WebhookReceiver;
let services: Services | undefined;

const start = async (runJobs: boolean) => {
  const config = loadConfig({ LOG_LEVEL: 'info', ...database.env, SUPPORT_WEBHOOK_URL: hook.url });
  services = await startServices(config, createLogger(config, new LogCapture()), {
    role: 'owner',
    command: 'test',
    runJobs,
  });
  return services;
};
const stop = async () => {
  await services?.close();
  services = undefined;
};
const rows = async (s: Services, text: string) => (await s.database.pool.query(text, [OLD])).rows;

async function until<T>(read: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

before(async () => {
  database = await createTestDatabase();
  hook = await startWebhookReceiver();
});
after(async () => {
  await stop();
  await hook.close();
  await database.drop();
});

describe('a job renamed by a move', () => {
  it('loses neither the queued jobs nor leaves the schedule of its former name', async () => {
    // As an earlier build left it: a notification whose delivery is due, the old queue with a
    // schedule, and a wake-up queued under the old name.
    let s = await start(false);
    const [raised] = await s.database.db.transaction().execute((trx) =>
      s.support.raise(trx, new Date(), [
        {
          kind: 'JOB_FAILED',
          reason: 'X',
          message: 'raised before the upgrade',
          facilityId: null,
          auctionId: null,
          detail: {},
        },
      ]),
    );
    const pool = s.database.pool;
    const boss = new PgBoss({
      db: { executeSql: (text, values) => pool.query(text, values) },
      schema: 'pgboss',
      supervise: false,
      schedule: false,
      migrate: true,
    });
    boss.on('error', () => {});
    await boss.start();
    await boss.createQueue(OLD, { name: OLD });
    await boss.schedule(OLD, '* * * * *');
    const queued = await boss.send(OLD, {});
    assert.ok(queued, 'the old-named job was queued');
    await boss.stop({ graceful: false, wait: true, close: false });
    await stop();

    // This build starts on it.
    s = await start(true);
    assert.deepEqual(await rows(s, 'select name from pgboss.schedule where name = $1'), [], 'the old schedule remains');
    const state = await until(async () => {
      const [job] = await rows(s, `select state from pgboss.job where name = $1`);
      return job?.state === 'completed' ? job.state : undefined;
    }, 'the job queued under the former name to be worked');
    assert.equal(state, 'completed');
    await hook.waitFor((bodies) => bodies.some((b) => b.id === raised!.id));
    await stop();

    // A tick of the old schedule may have landed in the old queue as the queue started, before the
    // schedule was removed: it is worked too, at this start or the next.
    s = await start(true);
    await until(async () => {
      const [{ pending }] = await rows(
        s,
        `select count(*)::int as pending from pgboss.job where name = $1 and state < 'completed'`,
      );
      return pending === 0 ? true : undefined;
    }, 'the old queue to be worked empty');
    assert.deepEqual(await rows(s, 'select name from pgboss.schedule where name = $1'), []);
  });
});

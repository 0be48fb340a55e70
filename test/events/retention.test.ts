// Storage: partitions made ahead and on demand, retention by whole partitions (run by the job),
// and events that cannot be changed once stored.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { MAINTAIN_PARTITIONS_JOB } from '../../src/events/jobs.ts';
import { listPartitions } from '../../src/events/partitions.ts';
import { eventually } from '../helpers/e2e.ts';
import { provisionReportingAccount } from '../helpers/events.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { event, getJson, storeEvents } from './helpers.ts';

const DAY = 86_400_000;
let t: TestApp;

before(async () => {
  // A long retention, so that ingest accepts (and makes a partition for) an event 300 days old.
  t = await startTestApp({ runJobs: true, env: { EVENT_RETENTION_DAYS: '400' } });
});
after(() => t.close());

const partitionNames = async () => (await listPartitions(t.services.database.pool)).map((p) => p.name).sort();
const nameOf = (ms: number) => `gateway_events_p${new Date(ms).toISOString().slice(0, 7).replace('-', '')}`;
/** How ingest judged a batch with nothing refused and nothing to warn about. */
const judged = (accepted: number, duplicates: number) => ({ accepted, duplicates, rejected: [], warnings: [] });

it('ingest makes a missing month on demand; retention drops whole partitions older than the window', async () => {
  const account = await provisionReportingAccount(t, { facilities: 1 });
  const token = account.gateways[0]!;
  const oldTime = Date.now() - 300 * DAY;
  assert.equal((await partitionNames()).includes(nameOf(oldTime)), false, 'the migration made only the default window');
  const old = event({ occurredAt: new Date(oldTime).toISOString() });
  const recent = event();
  assert.deepEqual(await storeEvents(t, token, [old, recent]), judged(2, 0));
  assert.ok((await partitionNames()).includes(nameOf(oldTime)));
  const page = await getJson(t, account.token, `/gatewayevents/accounts/${account.accountId}?sort=asc`);
  assert.equal(page.body.items[0].occurredAt, old.occurredAt);

  // The window shrinks to 180 days (as a restart with EVENT_RETENTION_DAYS=180 would do).
  const result = await t.services.events.partitions.maintain(Date.now(), 180);
  assert.ok(result.dropped.includes(nameOf(oldTime)));
  assert.equal((await partitionNames()).includes(nameOf(oldTime)), false);
  assert.ok(result.idsDeleted >= 1, 'the old event id is forgotten with it');
  const { rows } = await t.services.database.pool.query(
    'select gwc_event_id from gateway_events where gwc_event_id = any($1)',
    [[old.eventId, recent.eventId]],
  );
  assert.deepEqual(
    rows.map((r) => r.gwc_event_id),
    [recent.eventId],
  );
  // A partition that still holds retained days stays.
  assert.ok((await partitionNames()).includes(nameOf(Date.now() - 170 * DAY)));
});

it('the maintenance job makes the coming months', async () => {
  const ahead = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() + 2, 1);
  await t.services.database.pool.query(`drop table ${nameOf(ahead)}`);
  assert.equal((await partitionNames()).includes(nameOf(ahead)), false);
  await t.services.jobs.send(MAINTAIN_PARTITIONS_JOB, {});
  // Until the job has made it (the deadline only ends a hung test).
  await eventually(
    `the job to make ${nameOf(ahead)}`,
    async () => (await partitionNames()).includes(nameOf(ahead)),
    20_000,
  );
});

it('refuses to change or delete a stored event', async () => {
  const pool = t.services.database.pool;
  await assert.rejects(pool.query(`update gateway_events set details = 'edited'`), /append-only/);
  await assert.rejects(pool.query(`delete from gateway_events`), /append-only/);
  const { rows } = await pool.query('select count(*)::int as n from gateway_events');
  assert.ok(rows[0].n >= 1);
});

// Idempotency across months and through the retention job (issue 12 item 2: the side table of
// controller event ids is what makes these hold; a unique index on the partitioned table could not).
it('an eventId reported again with a time in another month is stored once', async () => {
  const account = await provisionReportingAccount(t, { facilities: 1 });
  const token = account.gateways[0]!;
  const first = event({ occurredAt: new Date(Date.now() - 40 * DAY).toISOString() });
  assert.equal((await storeEvents(t, token, [first])).accepted, 1);
  // The same id, now with a time 40 days later (another month's partition), beside a new event.
  const moved = { ...first, occurredAt: new Date(Date.now() - 60_000).toISOString() };
  const fresh = event();
  assert.deepEqual(await storeEvents(t, token, [moved, fresh]), judged(1, 1));
  const { rows } = await t.services.database.pool.query(
    'select gwc_event_id, occurred_at from gateway_events where facility_id = $1 order by seq',
    [account.facilities[0]!.id],
  );
  assert.deepEqual(
    rows.map((r) => [r.gwc_event_id, r.occurred_at.toISOString()]),
    [
      [first.eventId, first.occurredAt],
      [fresh.eventId, fresh.occurredAt],
    ],
  );
});

it('a retry after the retention job ran is still a duplicate: the job forgets only ids older than the window', async () => {
  const account = await provisionReportingAccount(t, { facilities: 1 });
  const token = account.gateways[0]!;
  // One event just inside this app's window (400 days), one recent.
  const batch = [event({ occurredAt: new Date(Date.now() - 390 * DAY).toISOString() }), event()];
  assert.equal((await storeEvents(t, token, batch)).accepted, 2);
  const result = await t.services.events.partitions.maintain(Date.now(), 400);
  assert.deepEqual(result.dropped, []);
  assert.deepEqual(await storeEvents(t, token, batch), judged(0, 2));
  const { rows } = await t.services.database.pool.query(
    'select count(*)::int as n from gateway_events where facility_id = $1',
    [account.facilities[0]!.id],
  );
  assert.equal(rows[0].n, 2);
});

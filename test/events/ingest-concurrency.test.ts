// Ingest without the account's lock (issue 12 item 1): batches of one account stored in parallel,
// while cursor walks still return every event exactly once — late ones included — because reads are
// bounded by the commit horizon (src/events/horizon.ts), not by the highest id stored. And the bad
// input of the issue: one event id at two facilities, a batch over three months, a retry in flight.
import type { EntityId } from '../../src/ids.ts';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createTestDatabase, onPostgres, startTestApp, type TestApp } from '../helpers/harness.ts';
import { gatewayToken, provisionAccount, type ProvisionedAccount } from '../helpers/tenants.ts';
import { event, getJson, postEvents, storeEvents } from './helpers.ts';

const DAY = 86_400_000;
let t: TestApp;

before(async () => {
  t = await startTestApp();
});
after(() => t.close());

async function fleet(facilities: number): Promise<{ account: ProvisionedAccount; gateways: string[] }> {
  const account = await provisionAccount(t, { facilities });
  const gateways = [];
  for (const facility of account.facilities) gateways.push((await gatewayToken(t, facility.id)).token);
  return { account, gateways };
}

/** A cursor walk of the account, ascending; `between` runs after each page but the last. */
async function walk(account: ProvisionedAccount, pageSize: number, between?: (page: number) => Promise<void>) {
  const ids: string[] = [];
  let cursor: string | null = null;
  let total = 0;
  for (let page = 1; page < 1000; page++) {
    const url = `/gatewayevents/accounts/${account.accountId}?pageSize=${pageSize}&sort=asc${cursor ? `&cursor=${cursor}` : ''}`;
    const response = await getJson(t, account.token, url);
    assert.equal(response.status, 200, response.text);
    ids.push(...response.body.items.map((i: { id: string }) => i.id));
    total = response.body.metadata.totalResults;
    cursor = response.body.metadata.nextCursor;
    if (!cursor) return { ids, total };
    if (between) await between(page);
  }
  throw new Error('the walk did not end');
}

async function allIds(account: ProvisionedAccount): Promise<string[]> {
  const all = await getJson(t, account.token, `/gatewayevents/accounts/${account.accountId}?pageSize=10000`);
  assert.equal(all.status, 200);
  return all.body.items.map((i: { id: string }) => i.id);
}

function assertExactlyOnce(walked: string[], everything: string[], message: string) {
  assert.equal(new Set(walked).size, walked.length, `${message}: no event twice`);
  assert.deepEqual([...walked].sort(), [...everything].sort(), `${message}: every event`);
}

/** Until `check` holds (a condition reached, not a duration: the deadline only ends a hung test). */
async function until(check: () => Promise<boolean>, what: string) {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('bad input', () => {
  it('stores the same controller event id twice when two facilities of one account report it (ids are per facility)', async () => {
    const { account, gateways } = await fleet(2);
    const shared = event({ eventId: 'door-17-open' });
    const [first, second] = await Promise.all([
      postEvents(t, gateways[0]!, [shared]),
      postEvents(t, gateways[1]!, [shared]),
    ]);
    assert.deepEqual([first.body.accepted, second.body.accepted], [1, 1]);
    const { rows } = await t.services.database.pool.query(
      'select facility_id from gateway_events where account_id = $1 and gwc_event_id = $2 order by facility_id',
      [account.accountId, 'door-17-open'],
    );
    assert.deepEqual(
      rows.map((r) => Number(r.facility_id)),
      account.facilities.map((f) => f.id).sort((a, b) => a - b),
    );
    // And again from each: duplicates now, at both.
    const again = await Promise.all(gateways.map((g) => postEvents(t, g, [shared])));
    assert.deepEqual(
      again.map((r) => [r.body.accepted, r.body.duplicates]),
      [
        [0, 1],
        [0, 1],
      ],
    );
  });

  it('stores a batch whose events span three months (three partitions), all readable', async () => {
    const { account, gateways } = await fleet(1);
    const batch = [70, 35, 1].map((days) => event({ occurredAt: new Date(Date.now() - days * DAY).toISOString() }));
    const posted = await postEvents(t, gateways[0]!, batch);
    assert.equal(posted.status, 200);
    assert.equal(posted.body.accepted, 3);
    const { rows } = await t.services.database.pool.query(
      'select distinct tableoid::regclass::text as partition from gateway_events where account_id = $1',
      [account.accountId],
    );
    assert.equal(rows.length, 3, 'three monthly partitions');
    const { ids } = await walk(account, 1);
    assert.equal(ids.length, 3);
    assertExactlyOnce(ids, await allIds(account), 'three months');
  });

  it('stores a batch retried while the first attempt is in flight once, and answers both', async () => {
    const { account, gateways } = await fleet(1);
    const batch = Array.from({ length: 20 }, () => event());
    const attempts = await Promise.all([postEvents(t, gateways[0]!, batch), postEvents(t, gateways[0]!, batch)]);
    for (const attempt of attempts) assert.equal(attempt.status, 200);
    assert.equal(attempts[0]!.body.accepted + attempts[1]!.body.accepted, 20);
    assert.equal(attempts[0]!.body.duplicates + attempts[1]!.body.duplicates, 20);
    assert.equal((await allIds(account)).length, 20);
  });
});

describe('many batches of one account at once', () => {
  it('a cursor walk interleaved with them returns every event exactly once, late ones included', async () => {
    const { account, gateways } = await fleet(6);
    const seed = Array.from({ length: 30 }, (_, i) =>
      event({ occurredAt: new Date(Date.now() - (30 - i) * 3_600_000).toISOString() }),
    );
    assert.equal((await storeEvents(t, gateways[0]!, seed)).accepted, 30);
    let sent = 0;
    const { ids, total } = await walk(account, 4, async (page) => {
      if (page > 12) return;
      // Every facility at once: fresh events and late ones, among the hours the walk has read.
      const results = await Promise.all(
        gateways.map((gateway, f) =>
          postEvents(t, gateway, [
            event({}, 0),
            event({ occurredAt: new Date(Date.now() - 29.5 * 3_600_000 - page * 1000 - f).toISOString() }),
            event({ occurredAt: new Date(Date.now() - (20 - page) * 3_600_000).toISOString() }),
          ]),
        ),
      );
      for (const result of results) assert.equal(result.body.accepted, 3);
      sent += 3 * gateways.length;
    });
    const everything = await allIds(account);
    assert.equal(everything.length, 30 + sent);
    assertExactlyOnce(ids, everything, 'concurrent batches');
    assert.equal(total, everything.length);
  });
});

// A transaction held open on another connection holds every other connection of the embedded
// database (one session), so these run where transactions really overlap.
if (onPostgres) {
  describe('transactions that overlap (PostgreSQL)', () => {
    /** A command of the facility whose row `holder` locks: a Command Received event then waits in ingest. */
    async function lockedCommand(facilityId: EntityId, holder: pg.PoolClient): Promise<string> {
      const { rows } = await t.services.database.pool.query(
        `insert into commands (facility_id, sequence, type, payload, expires_at)
         values ($1, 1000000 + (random() * 1000000)::int, 'test.hold', '{}', now() + interval '1 day') returning id`,
        [facilityId],
      );
      const id: string = rows[0].id;
      await holder.query('begin');
      await holder.query('select id from commands where id = $1 for update', [id]);
      return id;
    }

    // A batch's statement waiting for a lock (pg_stat_activity keeps a statement's first kilobyte: its beginning).
    const waitingOnLock = async () =>
      Number(
        (
          await t.services.database.pool.query(
            `select count(*) as n from pg_stat_activity
              where datname = current_database() and wait_event_type = 'Lock' and query ilike '%with batch as (%'`,
          )
        ).rows[0].n,
      ) > 0;

    it('a batch that commits after a later one is still returned by a walk that began in between (the late event included)', async () => {
      const { account, gateways } = await fleet(2);
      const seed = Array.from({ length: 12 }, (_, i) =>
        event({ occurredAt: new Date(Date.now() - (12 - i) * DAY).toISOString() }),
      );
      assert.equal((await storeEvents(t, gateways[1]!, seed)).accepted, 12);

      const holder = await t.services.database.pool.connect();
      try {
        // Batch A: a late event (older than everything) and a Command Received event. Its rows are
        // written — its transaction id and sequence numbers drawn — then it waits for the command's row.
        const commandId = await lockedCommand(account.facilities[0]!.id, holder);
        const late = event({ occurredAt: new Date(Date.now() - 20 * DAY).toISOString() });
        const received = event({ eventType: 3, data: { commandId } }, 1);
        const batchA = postEvents(t, gateways[0]!, [late, received]);
        await until(waitingOnLock, 'batch A waits for the command row');
        // Batch B, of another facility of the account, starts later and commits first.
        const b = await postEvents(t, gateways[1]!, [event({}, 0), event({}, 2)]);
        assert.equal(b.body.accepted, 2);

        // A walk begins while A is in flight. Bounded by the highest id stored (B's transaction or
        // sequence), its first phase would include B but not A, and A — committing below that bound
        // with an old occurredAt — would be behind the walk's position for good.
        const { ids, total } = await walk(account, 4, async (page) => {
          if (page !== 1) return;
          await holder.query('commit');
          const a = await batchA;
          assert.equal(a.status, 200);
          assert.equal(a.body.accepted, 2);
        });
        const everything = await allIds(account);
        assert.equal(everything.length, 16);
        assertExactlyOnce(ids, everything, 'A committed after B');
        assert.equal(total, 16);
      } finally {
        await holder.query('rollback').catch(() => {});
        holder.release();
      }
    });

    it('a retry that arrives while the first attempt waits is stored once, and both are answered', async () => {
      const { account, gateways } = await fleet(1);
      const holder = await t.services.database.pool.connect();
      try {
        const commandId = await lockedCommand(account.facilities[0]!.id, holder);
        const batch = [event(), event({ eventType: 3, data: { commandId } }), event()];
        const first = postEvents(t, gateways[0]!, batch);
        await until(waitingOnLock, 'the first attempt is in flight');
        // The retry, with one new event before the old ones: it waits for the attempt in flight.
        const retry = postEvents(t, gateways[0]!, [event(), ...[...batch].reverse()]);
        await until(
          async () =>
            Number(
              (
                await t.services.database.pool.query(
                  `select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
                )
              ).rows[0].n,
            ) >= 2,
          'the retry waits for the first attempt',
        );
        await holder.query('commit');
        const [a, b] = await Promise.all([first, retry]);
        assert.equal(a.status, 200);
        assert.equal(b.status, 200);
        assert.deepEqual([a.body.accepted, a.body.duplicates], [3, 0]);
        assert.deepEqual([b.body.accepted, b.body.duplicates], [1, 3]);
        assert.equal((await allIds(account)).length, 4);
      } finally {
        await holder.query('rollback').catch(() => {});
        holder.release();
      }
    });

    it('a transaction held open in another database of the server does not hold back reads', async () => {
      const other = await createTestDatabase();
      const client = new pg.Client({ connectionString: other.env.DATABASE_URL });
      await client.connect();
      const { account, gateways } = await fleet(1);
      const waits = () => t.services.events.metrics.horizonWaits.get();
      try {
        await client.query('begin');
        await client.query('select pg_current_xact_id()'); // it now holds a transaction id, older than what follows
        const before = (await waits()).values.find((v) => v.labels.outcome === 'timed_out')?.value ?? 0;
        const batch = [event(), event(), event()];
        assert.equal((await storeEvents(t, gateways[0]!, batch)).accepted, 3);
        // Acknowledged, so readable at once: the other database's transaction is not this one's concern.
        const { ids } = await walk(account, 2);
        assert.equal(ids.length, 3);
        const afterwards = (await waits()).values.find((v) => v.labels.outcome === 'timed_out')?.value ?? 0;
        assert.equal(afterwards, before, 'no read ran out of patience');
      } finally {
        await client.query('rollback').catch(() => {});
        await client.end();
        await other.drop();
      }
    });

    it('a transaction held open in this database delays what a read sees, never what a walk returns', async () => {
      const { account, gateways } = await fleet(1);
      const holder = await t.services.database.pool.connect();
      try {
        await holder.query('begin');
        await holder.query('select pg_current_xact_id()');
        const batch = [event({}, 3), event({}, 2), event({}, 1)];
        assert.equal((await storeEvents(t, gateways[0]!, batch)).accepted, 3);
        // Committed above the horizon the held transaction keeps: the read waits its while, then
        // answers with what is safe (nothing of this account yet) — and says so in the metrics.
        const timedOut = async () =>
          (await t.services.events.metrics.horizonWaits.get()).values.find((v) => v.labels.outcome === 'timed_out')
            ?.value ?? 0;
        const before = await timedOut();
        const early = await getJson(t, account.token, `/gatewayevents/accounts/${account.accountId}`);
        assert.equal(early.status, 200);
        assert.equal(early.body.items.length, 0);
        assert.ok((await timedOut()) > before, 'the read waited and ran out');
        await holder.query('commit');
        const { ids } = await walk(account, 2);
        assert.equal(ids.length, 3);
      } finally {
        await holder.query('rollback').catch(() => {});
        holder.release();
      }
    });
  });
}

describe('concurrent batches of one facility (issue 25)', () => {
  it('8 senders on one facility, their devices and alarms overlapping in different orders: every batch 200, every event stored', async () => {
    const { account, gateways } = await fleet(1);
    const gateway = gateways[0]!;
    const devices = Array.from({ length: 12 }, (_, i) => `dev-${i}`);
    // Each sender names the devices in its own order (rotated and reversed), with door alarms, offline
    // and online reports and accesses: two batches touch the same rows in opposite orders.
    const batchOf = (sender: number, round: number) =>
      Array.from({ length: 120 }, (_, i) => {
        const order = sender % 2 === 0 ? devices : [...devices].reverse();
        const device = order[(i + sender * 3 + round) % devices.length]!;
        const type = [18, 10, 11, 12, 35, 26][i % 6]!;
        return event(
          {
            eventType: type,
            deviceId: device,
            deviceName: `Device ${device}`,
            ...(type === 10 || type === 35 || type === 26 ? { data: { active: i % 4 !== 0 } } : {}),
            ...(type === 35 ? { unitId: 1 + (i % 5) } : {}),
          },
          (120 - i) / 60,
        );
      });
    let sent = 0;
    const statuses: number[] = [];
    for (let round = 0; round < 4; round++) {
      const batches = Array.from({ length: 8 }, (_, sender) => batchOf(sender, round));
      sent += batches.reduce((n, b) => n + b.length, 0);
      const answers = await Promise.all(batches.map((batch) => postEvents(t, gateway, batch)));
      statuses.push(...answers.map((a) => a.status));
      for (const answer of answers)
        assert.equal(answer.status, 200, `a valid batch refused: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
    assert.equal(statuses.length, 32);
    const { rows } = await t.services.database.pool.query(
      'select count(*)::int as n from gateway_events where account_id = $1',
      [account.accountId],
    );
    assert.equal(rows[0].n, sent);
    const devicesKept = await t.services.database.pool.query(
      'select count(*)::int as n from facility_devices where facility_id = $1',
      [account.facilities[0]!.id],
    );
    assert.equal(devicesKept.rows[0].n, devices.length, 'every device kept once');
  });
});

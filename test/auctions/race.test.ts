// No race (issue 5, point 3): a 5,000-unit create and cancels of units in it, fired together,
// many times; after each round the invariants must hold — at most one open auction per unit,
// every acknowledged cancel cancelled, every history a path through the transition table — and
// the outcome must be that of the requests applied one after the other.
import type { EntityId } from '../../src/ids.ts';
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import type { AuctionStatus } from '../../src/auctions/model.ts';
import { isValidHistory, type Trigger } from '../../src/auctions/transitions.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { partnerToken, uniqueGuid } from '../helpers/tenants.ts';
import { byUnit, cancelUnit, createList, envelopeOf, record, type Partner } from './helpers.ts';

const ROUNDS = 4;
const UNITS = 5000;
const CANCELS = 16;

let t: TestApp;
let accountId: EntityId;
before(async () => {
  t = await startTestApp({ env: { AUCTION_RECREATE_WAIT_MINUTES: '15', LOG_LEVEL: 'warn' } });
  accountId = (await t.services.tenancy.createAccount({ name: 'Race Storage' })).id;
});
after(() => t.close());

async function freshPartner(round: number): Promise<Partner> {
  const facility = await t.services.tenancy.createFacility({
    accountId,
    name: `Race ${round}`,
    timeZone: 'America/Denver',
    guid: uniqueGuid('RACE'),
  });
  const clientType = `RacePMS${round}`;
  const partner = await partnerToken(t, clientType, [facility.guid!]);
  return {
    guid: facility.guid!,
    facilityId: facility.id,
    clientType,
    token: partner.token,
    clientId: partner.clientId,
    otherGuid: '',
    otherFacilityId: 0,
  };
}

/** Distinct random picks. */
function pick<T>(items: T[], n: number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, n);
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Fires the cancels at random moments while the create is under way. */
async function race(create: () => Promise<any>, unitIds: string[], p: Partner) {
  const createPromise = create();
  const cancels = unitIds.map(async (unitId, i) => {
    await pause(Math.random() * 40 * (i % 4));
    const response = await cancelUnit(t, p, [{ unitId, reason: 'race' }]);
    return { unitId, status: response.statusCode, body: envelopeOf(response) };
  });
  const [createResponse, ...cancelResults] = await Promise.all([createPromise, ...cancels]);
  assert.equal(createResponse.statusCode, 200, createResponse.body);
  return { created: envelopeOf(createResponse), cancels: cancelResults };
}

async function checkInvariants(facilityId: EntityId) {
  const db = t.services.database.db;
  const { rows: doubled } = await sql<{ unit_id: string }>`
    select unit_id from auctions where facility_id = ${facilityId} and status in ('Pending', 'Active') group by unit_id having count(*) > 1`.execute(
    db,
  );
  assert.deepEqual(doubled, [], 'a unit has two open auctions');
  const { rows } = await sql<{
    id: string;
    status: AuctionStatus;
    from_status: AuctionStatus | null;
    to_status: AuctionStatus;
    trigger: Trigger;
    at: Date;
  }>`
    select a.id, a.status, h.from_status, h.to_status, h.trigger, h.at
    from auctions a join auction_history h on h.auction_id = a.id
    where a.facility_id = ${facilityId}
    order by a.id, h.id`.execute(db);
  const histories = new Map<string, typeof rows>();
  for (const row of rows) histories.set(row.id, [...(histories.get(row.id) ?? []), row]);
  const { rows: count } = await sql<{
    n: number;
  }>`select count(*)::int as n from auctions where facility_id = ${facilityId}`.execute(db);
  assert.equal(histories.size, count[0]!.n, 'an auction has no history');
  for (const [id, history] of histories) {
    const steps = history.map((h) => ({ from: h.from_status, to: h.to_status, trigger: h.trigger }));
    assert.ok(isValidHistory(steps), `auction ${id}: ${JSON.stringify(steps)}`);
    assert.equal(
      history.at(-1)!.to_status,
      history[0]!.status,
      `auction ${id}: its history does not end in its status`,
    );
    for (let i = 1; i < history.length; i++)
      assert.ok(history[i]!.at >= history[i - 1]!.at, `auction ${id}: history out of order`);
  }
  return histories;
}

async function statusOf(auctionId: string) {
  const row = await t.services.database.db
    .selectFrom('auctions')
    .select(['status', 'unit_id'])
    .where('id', '=', auctionId)
    .executeTakeFirstOrThrow();
  return row.status as AuctionStatus;
}

it(`a ${UNITS}-unit create racing cancels of its units equals the requests in sequence (${ROUNDS} rounds)`, async (context) => {
  const orders = { cancelFirst: 0, createFirst: 0 };
  for (let round = 1; round <= ROUNDS; round++) {
    const p = await freshPartner(round);
    const list = Array.from({ length: UNITS }, (_, i) => record(`R${round}-${String(i).padStart(5, '0')}`));
    const ids = list.map((r) => r.unitId as string);

    // Round, part 1: the create makes every auction while cancels of its units arrive.
    const first = pick(ids, CANCELS);
    const a = await race(() => createList(t, p, list), first, p);
    assert.equal(a.created.data.summary.created, UNITS);
    const createdIds = byUnit(a.created.data.results);
    for (const cancel of a.cancels) {
      if (cancel.status === 200) {
        // After the create: the auction it made is cancelled.
        orders.createFirst++;
        assert.equal(cancel.body.data.auctionId, createdIds.get(cancel.unitId).auctionId);
        assert.equal(await statusOf(cancel.body.data.auctionId), 'Cancelled');
      } else {
        // Before the create: nothing to cancel yet, and the create then made the auction.
        orders.cancelFirst++;
        assert.equal(cancel.status, 404, JSON.stringify(cancel.body));
        assert.equal(cancel.body.meta.errors[0]!.code, 'UNIT_NOT_FOUND');
        assert.equal(await statusOf(createdIds.get(cancel.unitId).auctionId), 'Active');
      }
    }
    await checkInvariants(p.facilityId);

    // Round, part 2: the list again, without some units, while those and others are cancelled.
    const acked = new Set(a.cancels.filter((c) => c.status === 200).map((c) => c.unitId));
    const stillOpen = ids.filter((id) => !acked.has(id) && !first.includes(id));
    const dropped = pick(stillOpen, 50);
    const droppedSet = new Set(dropped);
    const kept = stillOpen.filter((id) => !droppedSet.has(id));
    const cancelDropped = dropped.slice(0, CANCELS / 2);
    const cancelKept = pick(kept, CANCELS / 2);
    const b = await race(
      () =>
        createList(
          t,
          p,
          list.filter((r) => !droppedSet.has(r.unitId as string)),
        ),
      [...cancelDropped, ...cancelKept],
      p,
    );
    const outcome = byUnit(b.created.data.results);
    assert.equal(
      b.created.data.summary.removed +
        b.cancels.filter((c) => cancelDropped.includes(c.unitId) && c.status === 200).length,
      50,
    );
    for (const cancel of b.cancels) {
      const auctionId = createdIds.get(cancel.unitId).auctionId;
      assert.equal(await statusOf(auctionId), 'Cancelled', `${cancel.unitId} is not cancelled`);
      if (droppedSet.has(cancel.unitId)) {
        // Either the cancel came first (ACK, and the list then had nothing to withdraw) or the
        // list did (withdrawn, and the cancel then found it cancelled) — never both, never neither.
        const removedByList = outcome.get(cancel.unitId)?.outcome === 'removed';
        if (cancel.status === 200) assert.equal(removedByList, false, `${cancel.unitId}: cancelled twice`);
        else {
          assert.equal(cancel.status, 409);
          assert.equal(cancel.body.meta.warnings[0]!.code, 'ALREADY_CANCELLED');
          assert.equal(removedByList, true);
        }
      } else {
        // A listed unit: the cancel is acknowledged either way; the list saw the auction open
        // (unchanged) if it came first, or cancelled moments ago (deferred) if it came second.
        assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
        const seen = outcome.get(cancel.unitId);
        if (seen.outcome === 'deferred') assert.equal(seen.retryAfter, cancel.body.data.recreateAfter);
        else assert.deepEqual([seen.outcome, seen.status], ['unchanged', 'Active']);
      }
    }
    // Units cancelled in part 1 are listed again within the wait: deferred, not re-created.
    for (const unitId of acked) assert.equal(outcome.get(unitId).outcome, 'deferred');
    const histories = await checkInvariants(p.facilityId);
    // Every cancelled auction was cancelled exactly once.
    for (const history of histories.values()) assert.ok(history.filter((h) => h.to_status === 'Cancelled').length <= 1);
  }
  context.diagnostic(`cancels that ran before the create: ${orders.cancelFirst}, after it: ${orders.createFirst}`);
});

it("concurrent statements of different connections never get each other's answers", async () => {
  // The embedded database serves every connection from one backend: a query's messages must not
  // be interleaved with another connection's (the cause of wrong rows and hangs under load).
  const pool = t.services.database.pool;
  await pool.query('create temporary table if not exists race_probe (v int)');
  const outcomes = await Promise.all(
    Array.from({ length: 300 }, async (_, i) => {
      if (i % 3 === 0) {
        const client = await pool.connect();
        try {
          await client.query('begin');
          const { rows } = await client.query('select $1::int + 1 as v', [i]);
          await client.query('commit');
          return rows[0].v === i + 1;
        } finally {
          client.release();
        }
      }
      if (i % 3 === 1) return (await pool.query('select $1::int as v, $2::text as t', [i, `t${i}`])).rows[0].v === i;
      return (await pool.query('select $1::text as t', [`only-${i}`])).rows[0].t === `only-${i}`;
    }),
  );
  assert.equal(outcomes.filter((ok) => !ok).length, 0);
});

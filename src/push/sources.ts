// What a lane reads: the facts other faces already stored, past the lane's position and below the
// horizon (every transaction at or below it has ended: a fact read now is never followed by one
// that commits below it). Events come in slices of the cursor walk (src/events/cursor.ts): a phase
// lo < txid <= hi in (occurredAt, seq) order, so a slice read again reads the same events. The
// other facts come in the order of the transactions that made them.
import { sql } from 'kysely';
import type pg from 'pg';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import { encodeCursor, queryFingerprint } from '../events/cursor.ts';
import { type EventFilter, type EventRow, filterIdentity, pageQuery, toGatewayEvent } from '../events/query.ts';
import { LIMITS, type Topic } from './rules.ts';

/** A subscription as the lane reads it. */
export interface LaneSubscription {
  id: EntityId;
  account_id: EntityId | null;
  application_id: string | null;
  topics: Topic[];
  event_types: number[] | null;
  facility_ids: EntityId[] | null;
  events_lo: number;
  events_hi: number;
  events_after_ms: number | null;
  events_after_seq: number | null;
  facts_txid: number;
}

/** A slice of the walk: the phase, where it starts in it, and how many events. */
export interface EventSlice {
  lo: number;
  hi: number;
  after: { occurredAt: number; seq: number } | null;
  count: number;
}

/**
 * The events filter of a subscription: its account, its facilities and types, oldest first — the
 * same filter as `GET …/accounts/{id}?sort=asc&facilityIds=…&eventTypes=…` and its stream, so the
 * cursor a delivery carries resumes there too.
 */
export function subscriptionFilter(
  s: Pick<LaneSubscription, 'account_id' | 'event_types' | 'facility_ids'>,
): EventFilter {
  return {
    scope: { kind: 'account', accountId: s.account_id! },
    facilityIds: s.facility_ids,
    eventTypes: s.event_types,
    unitIds: null,
    visitorIds: null,
    start: null,
    end: null,
    sort: 'asc',
  };
}

async function readWindow(pool: pg.Pool, filter: EventFilter, slice: EventSlice, cutoff: number, limit: number) {
  const query = pageQuery(filter, { cutoff, lo: slice.lo, hi: slice.hi, after: slice.after }, { limit });
  return (await pool.query<EventRow>(query.text, query.values)).rows;
}

/**
 * Where the next phase of the walk ends: at the transaction of the account's PHASE_EVENTS-th event
 * after `lo` (the whole transaction: a phase never splits one), else at the horizon. Small phases
 * keep a lane's reads small whatever the planner thinks: a phase's transaction ids are newer than
 * the table's statistics, so the planner takes the (account_id, txid) index and sorts the whole
 * phase for its first rows — 387 ms for a phase of 100,000 events, against 0.2 ms for one of 100
 * (docs/BENCHMARKS.md, issue 14).
 */
async function phaseEnd(pool: pg.Pool, accountId: EntityId, lo: number, horizon: number): Promise<number> {
  const { rows } = await pool.query<{ txid: string }>(
    `select txid from gateway_events where account_id = $1::int8 and txid > $2::int8 and txid <= $3::int8
      order by txid offset ${PHASE_EVENTS - 1} limit 1`,
    [accountId, lo, horizon],
  );
  return rows[0] ? Number(rows[0].txid) : horizon;
}

const PHASE_EVENTS = LIMITS.eventsPerDelivery;
/** Empty phases a fill walks through (a filter that matches few events) before it lets the lane look again. */
const PHASES_PER_FILL = 20;

/**
 * The next slice of at most LIMITS.eventsPerDelivery events after the lane's position, with its
 * rows: in its phase, else in the next ones up to `horizon`. Null when there is nothing new;
 * `position` is then where the lane stands (phases may have been opened and found empty), and
 * `caughtUp` says whether it reached the horizon.
 */
export async function nextEventSlice(
  pool: pg.Pool,
  s: LaneSubscription,
  horizon: number,
  cutoff: number,
): Promise<{ slice: EventSlice | null; rows: EventRow[]; position: Omit<EventSlice, 'count'>; caughtUp: boolean }> {
  const filter = subscriptionFilter(s);
  let position: Omit<EventSlice, 'count'> = {
    lo: s.events_lo,
    hi: s.events_hi,
    after: s.events_after_ms === null ? null : { occurredAt: s.events_after_ms, seq: s.events_after_seq! },
  };
  for (let phase = 0; phase <= PHASES_PER_FILL; phase++) {
    const rows = await readWindow(pool, filter, { ...position, count: 0 }, cutoff, LIMITS.eventsPerDelivery);
    if (rows.length > 0) {
      const last = rows[rows.length - 1]!;
      return {
        slice: { ...position, count: rows.length },
        rows,
        position: { ...position, after: { occurredAt: Number(last.occurred_ms), seq: Number(last.seq) } },
        caughtUp: false,
      };
    }
    if (horizon <= position.hi) break;
    position = { lo: position.hi, hi: await phaseEnd(pool, s.account_id!, position.hi, horizon), after: null };
  }
  return { slice: null, rows: [], position, caughtUp: horizon <= position.hi };
}

/** The events of a slice, read again (a retry), each with the cursor that resumes after it. */
export async function eventsOfSlice(
  pool: pg.Pool,
  s: LaneSubscription,
  slice: EventSlice,
  cutoff: number,
  cursorKey: Buffer,
): Promise<Record<string, unknown>[]> {
  return renderEvents(s, slice, await readWindow(pool, subscriptionFilter(s), slice, cutoff, slice.count), cursorKey);
}

/** A slice's rows as delivered: GatewayEvents, each with the cursor that resumes after it. */
export function renderEvents(
  s: LaneSubscription,
  slice: EventSlice,
  rows: EventRow[],
  cursorKey: Buffer,
): Record<string, unknown>[] {
  const fingerprint = queryFingerprint(filterIdentity(subscriptionFilter(s)));
  return rows.map((row) => ({
    ...toGatewayEvent(row),
    cursor: encodeCursor(
      {
        fingerprint,
        lo: slice.lo,
        hi: slice.hi,
        after: { occurredAt: Number(row.occurred_ms), seq: Number(row.seq) },
        pageNumber: 1,
        total: 0,
      },
      cursorKey,
    ),
  }));
}

/** A fact other than an event, ready to deliver: its type, its time, its data. */
export interface Fact {
  txid: number;
  type: Topic;
  at: Date;
  data: Record<string, unknown>;
}

/**
 * The lane's facts with facts_txid < txid <= horizon (at most about LIMITS.factsPerFill, whole
 * transactions only), in transaction order, and the position after them.
 */
export async function nextFacts(
  db: Db,
  s: LaneSubscription,
  horizon: number,
): Promise<{ facts: Fact[]; txid: number }> {
  if (horizon <= s.facts_txid) return { facts: [], txid: s.facts_txid };
  const facts = (await readFacts(db, s, s.facts_txid, horizon, LIMITS.factsPerFill + 1)).sort(
    (a, b) => a.txid - b.txid,
  );
  if (facts.length <= LIMITS.factsPerFill) return { facts, txid: horizon };
  // More than a fill takes: stop before the last transaction read (it may have more facts), unless it is the only one.
  const lastTxid = facts[facts.length - 1]!.txid;
  const whole = facts.filter((f) => f.txid < lastTxid);
  if (whole.length === 0) return { facts, txid: lastTxid };
  return { facts: whole, txid: whole[whole.length - 1]!.txid };
}

/** Facts of the subscription's topics in (after, upTo] (by transaction), or since a time for a replay. */
export async function readFacts(
  db: Db,
  s: Pick<LaneSubscription, 'account_id' | 'application_id' | 'topics' | 'facility_ids'>,
  after: number,
  upTo: number,
  limit: number,
  since: Date | null = null,
): Promise<Fact[]> {
  const facts: Fact[] = [];
  const facilities = s.facility_ids;
  if (s.account_id !== null && s.topics.includes('command.status')) {
    const { rows } = await sql<{
      txid: number;
      id: string;
      facility_id: number;
      sequence: number;
      type: string;
      created_at: Date;
      acknowledged_at: Date | null;
      expires_at: Date;
    }>`
      select c.settled_txid as txid, c.id, c.facility_id, c.sequence, c.type, c.created_at, c.acknowledged_at, c.expires_at
        from commands c join facilities f on f.id = c.facility_id
       where f.account_id = ${s.account_id}::int8 and c.settled_txid > ${after}::int8 and c.settled_txid <= ${upTo}::int8
         and (${facilities}::int8[] is null or c.facility_id = any(${facilities}::int8[]))
         and (${since}::timestamptz is null or coalesce(c.acknowledged_at, c.expires_at) >= ${since}::timestamptz)
       order by c.settled_txid, c.sequence
       limit ${limit}`.execute(db);
    for (const r of rows) {
      const acknowledged = r.acknowledged_at !== null;
      const at = r.acknowledged_at ?? r.expires_at;
      facts.push({
        txid: Number(r.txid),
        type: 'command.status',
        at,
        data: {
          commandId: r.id,
          accountId: s.account_id,
          facilityId: r.facility_id,
          sequence: r.sequence,
          commandType: r.type,
          status: acknowledged ? 'acknowledged' : 'expired',
          createdAt: r.created_at.toISOString(),
          [acknowledged ? 'acknowledgedAt' : 'expiredAt']: at.toISOString(),
        },
      });
    }
  }
  if (s.account_id !== null && s.topics.includes('facility.status')) {
    const { rows } = await sql<{
      txid: number;
      id: number;
      facility_id: number;
      component: string;
      previous_status: string | null;
      status: string;
      message: string;
      changed_at: Date;
    }>`
      select txid, id, facility_id, component, previous_status, status, message, changed_at
        from facility_status_changes
       where account_id = ${s.account_id}::int8 and txid > ${after}::int8 and txid <= ${upTo}::int8
         and (${facilities}::int8[] is null or facility_id = any(${facilities}::int8[]))
         and (${since}::timestamptz is null or changed_at >= ${since}::timestamptz)
       order by txid, id
       limit ${limit}`.execute(db);
    for (const r of rows) {
      facts.push({
        txid: Number(r.txid),
        type: 'facility.status',
        at: r.changed_at,
        data: {
          accountId: s.account_id,
          facilityId: r.facility_id,
          component: r.component,
          previousStatus: r.previous_status,
          status: r.status,
          message: r.message,
          changedAt: r.changed_at.toISOString(),
        },
      });
    }
  }
  if (s.application_id !== null && s.topics.includes('auction.status')) {
    const { rows } = await sql<{
      txid: number;
      auction_id: string;
      facility_id: number;
      guid: string;
      unit_id: string;
      unit_name: string;
      auction_type: string;
      from_status: string | null;
      to_status: string;
      trigger: string;
      reason: string;
      note: string | null;
      at: Date;
      sale: unknown;
    }>`
      select h.txid, h.auction_id, a.facility_id, f.guid, a.unit_id, a.unit_name, a.auction_type,
             h.from_status, h.to_status, h.trigger, h.reason, h.note, h.at, a.sale
        from auction_history h
        join auctions a on a.id = h.auction_id
        join facilities f on f.id = a.facility_id
        join applications ap on ap.id = ${s.application_id}::uuid
       where h.txid > ${after}::int8 and h.txid <= ${upTo}::int8 and f.guid = any(ap.facility_guids)
         and (${facilities}::int8[] is null or a.facility_id = any(${facilities}::int8[]))
         and (${since}::timestamptz is null or h.at >= ${since}::timestamptz)
       order by h.txid, h.id
       limit ${limit}`.execute(db);
    for (const r of rows) {
      facts.push({
        txid: Number(r.txid),
        type: 'auction.status',
        at: r.at,
        data: {
          auctionId: r.auction_id,
          facilityId: r.facility_id,
          guid: r.guid,
          unitId: r.unit_id,
          unitName: r.unit_name,
          auctionType: r.auction_type,
          previousStatus: r.from_status,
          status: r.to_status,
          trigger: r.trigger,
          reason: r.reason,
          note: r.note,
          sale: r.to_status === 'ClosedSold' ? r.sale : undefined,
          changedAt: r.at.toISOString(),
        },
      });
    }
  }
  return facts;
}

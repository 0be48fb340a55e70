// The access-event face's published facts (SPEC §6.4, topic gateway.events): an account's events,
// oldest first, in slices of the cursor walk (cursor.ts) — a phase lo < txid <= hi in (occurredAt,
// seq) order, so a slice read again reads the same events — each rendered as a GatewayEvent with the
// cursor that resumes after it (the same filter as `GET …/accounts/{id}?sort=asc&facilityIds=…&
// eventTypes=…` and its stream). Read below the commit horizon (src/db/horizon.ts) by whoever
// composes facts: the push face's lanes.
import type pg from 'pg';
import { sql } from 'kysely';
import { preparedQuery } from '../db/database.ts';
import { type FactPosition, ownersWithFactsAfter } from '../db/horizon.ts';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import { encodeCursor, queryFingerprint } from './cursor.ts';
import {
  type EventFilter,
  type EventRow,
  filterIdentity,
  type GatewayEvent,
  pageQuery,
  toGatewayEvent,
} from './query.ts';

/** Whose events: an account's, of some facilities and types (null: all). */
export interface EventSelection {
  accountId: EntityId;
  facilityIds: EntityId[] | null;
  eventTypes: number[] | null;
}

/** Where a reader of the walk stands: the phase, and the last event taken in it (null: none yet). */
export interface EventPosition {
  lo: number;
  hi: number;
  after: { occurredAt: number; seq: number } | null;
}

/** A slice of the walk: the phase, where it starts in it, and how many events. */
export interface EventSlice extends EventPosition {
  count: number;
}

/** An event as delivered: the GatewayEvent, with the cursor that resumes after it. */
export type DeliveredEvent = GatewayEvent & { cursor: string };

export interface NextSlice {
  /** Null when there is nothing new up to the horizon. */
  slice: EventSlice | null;
  events: DeliveredEvent[];
  /** Where the reader stands after the slice (phases may have been opened and found empty). */
  position: EventPosition;
  /** Whether it read up to the horizon (false with a slice, or when it stopped at a phase it has not read). */
  caughtUp: boolean;
}

export interface EventFacts {
  /**
   * The next slice of at most `limit` events after `position`: in its phase, else in the next ones
   * up to `horizon` (a phase ends at the transaction of the account's `limit`-th event, never
   * splitting one, else at the horizon). `phaseDone`: the reader has taken every event of its
   * position's phase (its last slice was short, or found nothing), so the walk goes on at the next
   * phase without reading this one again. Readers asking the same while a read is under way share
   * it (and its result: theirs to read, not to change).
   */
  nextSlice(
    selection: EventSelection,
    position: EventPosition,
    horizon: number,
    limit: number,
    phaseDone?: boolean,
  ): Promise<NextSlice>;
  /** The events of a slice, read again (a retry). */
  eventsOf(selection: EventSelection, slice: EventSlice): Promise<DeliveredEvent[]>;
  /** For each (account, after): whether the account has events stored by a transaction after it (a sweep's question). */
  factsAfter(positions: readonly FactPosition[]): Promise<boolean[]>;
}

/** Empty phases a read walks through (a filter that matches few events) before it answers. */
const PHASES_PER_READ = 20;

/** The events filter of a selection: oldest first, as the account's pages and stream with the same parameters. */
function filterOf(s: EventSelection): EventFilter {
  return {
    scope: { kind: 'account', accountId: s.accountId },
    facilityIds: s.facilityIds,
    eventTypes: s.eventTypes,
    unitIds: null,
    visitorIds: null,
    start: null,
    end: null,
    sort: 'asc',
  };
}

/**
 * The reader, bound to the database, the cursor key and the retention window (`cutoff`: events older
 * than this epoch ms, from now, are past it).
 */
export function createEventFacts(
  { pool, db }: { pool: pg.Pool; db: Db },
  cursorKey: Buffer,
  cutoff: () => number,
): EventFacts {
  const readWindow = async (filter: EventFilter, slice: EventSlice, limit: number) => {
    const query = pageQuery(filter, { cutoff: cutoff(), lo: slice.lo, hi: slice.hi, after: slice.after }, { limit });
    return (await pool.query<EventRow>(query.text, query.values)).rows;
  };

  /**
   * Where the next phase of the walk ends: at the transaction of the account's `size`-th event
   * after `lo` (the whole transaction: a phase never splits one), else at the horizon. Small phases
   * keep the reads small whatever the planner thinks: a phase's transaction ids are newer than the
   * table's statistics, so the planner takes the (account_id, txid) index and sorts the whole phase
   * for its first rows — 387 ms for a phase of 100,000 events, against 0.2 ms for one of 100
   * (docs/BENCHMARKS.md, issue 14).
   */
  const phaseEnd = async (accountId: EntityId, lo: number, horizon: number, size: number): Promise<number> => {
    // Prepared: one plan (the (account_id, txid) index) for every value; planned over the partitions
    // each time it cost more than it runs (issue 25).
    const rows = await preparedQuery<{ txid: string }>(
      pool,
      `select txid from gateway_events where account_id = $1::int8 and txid > $2::int8 and txid <= $3::int8
        order by txid offset ${size - 1} limit 1`,
      [accountId, lo, horizon],
    );
    return rows[0] ? Number(rows[0].txid) : horizon;
  };

  const render = (selection: EventSelection, slice: EventSlice, rows: EventRow[]): DeliveredEvent[] => {
    const fingerprint = queryFingerprint(filterIdentity(filterOf(selection)));
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
  };

  const nextSlice = async (
    selection: EventSelection,
    from: EventPosition,
    horizon: number,
    limit: number,
    phaseDone: boolean,
  ): Promise<NextSlice> => {
    const filter = filterOf(selection);
    let position = from;
    for (let phase = 0; phase <= PHASES_PER_READ; phase++) {
      const rows = phase === 0 && phaseDone ? [] : await readWindow(filter, { ...position, count: 0 }, limit);
      if (rows.length > 0) {
        const last = rows[rows.length - 1]!;
        const slice = { ...position, count: rows.length };
        return {
          slice,
          events: render(selection, slice, rows),
          position: { ...position, after: { occurredAt: Number(last.occurred_ms), seq: Number(last.seq) } },
          caughtUp: false,
        };
      }
      if (horizon <= position.hi) return { slice: null, events: [], position, caughtUp: true };
      position = {
        lo: position.hi,
        hi: await phaseEnd(selection.accountId, position.hi, horizon, limit),
        after: null,
      };
    }
    // The last phase opened is not read yet.
    return { slice: null, events: [], position, caughtUp: false };
  };

  /**
   * Slices being read, by what was asked: lanes of the same selection in step (the same position
   * and horizon — they converge once they fill at the same tick with the same horizon) make one
   * read. The events below the horizon never change, so a slice read for one is the slice of all.
   */
  const slicesUnderWay = new Map<string, Promise<NextSlice>>();

  return {
    nextSlice(selection, from, horizon, limit, phaseDone = false) {
      const key = JSON.stringify([selection, from, horizon, limit, phaseDone]);
      let read = slicesUnderWay.get(key);
      if (!read) {
        read = nextSlice(selection, from, horizon, limit, phaseDone).finally(() => slicesUnderWay.delete(key));
        slicesUnderWay.set(key, read);
      }
      return read;
    },
    async eventsOf(selection, slice) {
      return render(selection, slice, await readWindow(filterOf(selection), slice, slice.count));
    },
    factsAfter(positions) {
      return ownersWithFactsAfter(db, positions, {
        ownerType: 'int8',
        exists: sql`exists (select 1 from gateway_events e where e.account_id = p.owner and e.txid > p.after)`,
      });
    },
  };
}

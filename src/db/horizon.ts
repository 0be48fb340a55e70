// The commit horizon: how far a reader may read facts stored with the id of the transaction that
// stored them (a `txid` column: events, command settlements, facility status changes, auction
// history) without missing one that commits later. Transactions do not commit in the order of their
// ids, so "the highest id stored" says nothing about what may still commit below it; the horizon
// does: every transaction of this database whose id is at or below it has ended (committed or rolled
// back), and every transaction that starts later gets a higher id. A reader that computes the horizon
// `hi` and then reads `txid <= hi` sees a set that no later commit can change. One mechanism, used by
// every reader of such facts: the events' pages and walks (src/events/horizon.ts adds the wait for an
// account's committed events), a webhook lane's fill, a new subscription's starting point.
import type pg from 'pg';
import { type RawBuilder, sql } from 'kysely';
import type { Db } from './tables.ts';

/**
 * The horizon (`hi`): the highest transaction id below which every transaction of this database has
 * ended — one less than the oldest transaction of this database still running, or than the next id
 * to be assigned when none is. Transactions of other databases on the same server are left out (they
 * cannot write here; a long one would otherwise hold every reader back); an id whose database is
 * not known — its session ended a moment after the snapshot — is kept, which can only hold the
 * horizon lower. A statement of its own, or a subquery (`from (${HORIZON_SQL}) as h`).
 */
export const HORIZON_SQL = `select coalesce(
    (select min(x::text::int8) from pg_snapshot_xip(s.snap) as x
      where (x::text::int8 & 4294967295) not in (
        select backend_xid::text::int8 from pg_stat_activity
         where backend_xid is not null and datname <> current_database())),
    pg_snapshot_xmax(s.snap)::text::int8) - 1 as hi
  from (select pg_current_snapshot() as snap) as s`;

/** The horizon as it is now, without waiting for anything (through the pool or Kysely). */
export async function commitHorizon(db: pg.Pool | Db): Promise<number> {
  if ('selectFrom' in db) return Number((await sql<{ hi: string }>`${sql.raw(HORIZON_SQL)}`.execute(db)).rows[0]!.hi);
  return Number((await db.query<{ hi: string }>(HORIZON_SQL)).rows[0]!.hi);
}

/**
 * A fact read below the horizon, as its owner publishes it: the transaction that made it (readers
 * order and page by it), its time, and its payload (the exact JSON body a subscriber is told).
 */
export interface CommittedFact<Payload> {
  txid: number;
  at: Date;
  data: Payload;
}

/** Where a reader of an owner's facts stands: after the transaction `after`. */
export interface FactPosition {
  /** The facts' owner: an account id, or an application id. */
  owner: string | number;
  after: number;
}

/**
 * An owner's question "has this owner facts made by a transaction after this one?", as its own SQL:
 * an `exists (…)` over `p.owner` (of `ownerType`) and `p.after`. Others ask it (a sweep, a lane's
 * fill) without naming the owner's tables.
 */
export interface FactsPast {
  ownerType: 'int8' | 'uuid';
  exists: RawBuilder<unknown>;
}

/** The positions of `p` whose owner has facts past them: the 1-based ordinals, as an `array(…)`. */
const positionsWithFactsPast = (past: FactsPast, positions: readonly FactPosition[]) => sql`array(
    select p.i from unnest(${positions.map((p) => p.owner)}::${sql.raw(past.ownerType)}[], ${positions.map((p) => p.after)}::int8[])
                    with ordinality as p(owner, after, i)
     where ${past.exists})`;

const foundAt = (count: number, ordinals: readonly (string | number)[]) => {
  const found = new Array<boolean>(count).fill(false);
  for (const i of ordinals) found[Number(i) - 1] = true;
  return found;
};

/**
 * A sweep's question, one statement for every position: for each (owner, after), whether the owner
 * has facts made by a transaction after `after`.
 */
export async function ownersWithFactsAfter(
  db: Db,
  positions: readonly FactPosition[],
  past: FactsPast,
): Promise<boolean[]> {
  if (positions.length === 0) return [];
  const { rows } = await sql<{ found: (string | number)[] }>`
    select ${positionsWithFactsPast(past, positions)} as found`.execute(db);
  return foundAt(positions.length, rows[0]!.found);
}

/**
 * The horizon, and for each question (an owner's facts, the positions asked of it) whether each
 * position has facts past it — in one statement. Both come from the statement's one snapshot: a
 * position without facts past it has none up to the horizon, and never will (every transaction at
 * or below the horizon has ended), so its reader need not look.
 */
export async function horizonWithFactsAfter(
  db: Db,
  questions: readonly { past: FactsPast; positions: readonly FactPosition[] }[],
): Promise<{ hi: number; found: boolean[][] }> {
  const asked = questions.map((q, i) =>
    q.positions.length === 0
      ? sql`'{}'::int8[] as q${sql.raw(String(i))}`
      : sql`${positionsWithFactsPast(q.past, q.positions)} as q${sql.raw(String(i))}`,
  );
  const { rows } = await sql<Record<string, (string | number)[]> & { hi: string | number }>`
    select ${sql.join([sql`h.hi`, ...asked], sql`, `)} from (${sql.raw(HORIZON_SQL)}) as h`.execute(db);
  const row = rows[0]!;
  return { hi: Number(row.hi), found: questions.map((q, i) => foundAt(q.positions.length, row[`q${i}`]!)) };
}

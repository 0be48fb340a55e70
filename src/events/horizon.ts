// The horizon of a read of events: how far a reader may read without missing an event that commits
// later (the database's commit horizon, src/db/horizon.ts), waiting a moment for the account's.
//
// Ingest takes no lock (ingest.ts): an account's controllers store their batches in parallel, and
// each row records the id of the transaction that stored it (`txid`). Transactions do not commit in
// the order of their ids, so "the highest id stored" says nothing about what may still commit below
// it. The horizon does: every transaction of this database whose id is at or below it has ended
// (committed or rolled back), and every transaction that starts later gets a higher id. So a reader
// that computes the horizon `hi` and then reads `txid <= hi` sees a set that no later commit can
// change — the fixed phase a cursor walk needs (cursor.ts; the proof sketch in docs/faces/events.md).
//
// A transaction still running holds the horizon below itself. Ingest transactions last
// milliseconds, so a reader whose account has events committed above the horizon waits until the
// horizon passes them — a few milliseconds, at most HORIZON_WAIT_MS — and then reads what is safe.
// A long transaction elsewhere in this database (a migration, a stuck session) then delays
// freshness, never exactness: the events above the horizon come in the walk's next phase.
import type { EntityId } from '../ids.ts';
import type pg from 'pg';
import { preparedQuery } from '../db/database.ts';
import { commitHorizon } from '../db/horizon.ts';
import { horizonQuery } from './query.ts';

/** The longest a reader waits for the horizon to pass its account's committed events. */
export const HORIZON_WAIT_MS = 500;

export interface Horizon {
  /** Every transaction of this database with an id <= hi has ended. */
  hi: number;
  /** Milliseconds spent waiting for it (0: the account had nothing committed above it). */
  waitedMs: number;
  /** False when the wait ran out with events of the account still above `hi`. */
  caughtUp: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The horizon for a read of the account. When the account has events committed above it (their
 * controllers have their acknowledgement, so a reader expects them), waits until the horizon
 * passes the highest of those, polling, at most `maxWaitMs`; then answers with the horizon reached.
 */
export async function readHorizon(pool: pg.Pool, accountId: EntityId, maxWaitMs = HORIZON_WAIT_MS): Promise<Horizon> {
  const query = horizonQuery(accountId);
  // Prepared: its plan (the (account_id, txid) index of each partition) holds for every value, and
  // planning it over the partitions cost 2 ms a read, against 0.2 to run it (issue 25).
  const first = (await preparedQuery<{ hi: string; ahead: string | null }>(pool, query.text, query.values))[0]!;
  let hi = Number(first.hi);
  if (first.ahead === null) return { hi, waitedMs: 0, caughtUp: true };
  // Committed above the horizon: the transactions running now that hold it back end in milliseconds,
  // and every transaction that starts from now on gets an id above `target`.
  const target = Number(first.ahead);
  const started = performance.now();
  for (let pause = 1; hi < target; pause = Math.min(pause * 2, 32)) {
    const left = maxWaitMs - (performance.now() - started);
    if (left <= 0) return { hi, waitedMs: Math.round(performance.now() - started), caughtUp: false };
    await sleep(Math.min(pause, left));
    // Any horizon once computed stays true (ended transactions stay ended): keep the highest.
    hi = Math.max(hi, await commitHorizon(pool));
  }
  return { hi, waitedMs: Math.round(performance.now() - started), caughtUp: true };
}

// Every write of a facility's auctions runs in a short transaction that first takes the
// facility's row lock (repository.lockFacility), so they are applied one at a time, in arrival
// order. This is the form of it for a change of one auction named by id (support, the marketplace).
import { notFound } from '../errors.ts';
import type { Db } from '../db/tables.ts';
import { auctionRow, findAuction, lockFacility, type AuctionRow } from './repository.ts';

export interface LockedAuction {
  trx: Db;
  /** The auction, read again under the lock. */
  row: AuctionRow;
  /** The clock once the lock is held. */
  now: Date;
  charityEnrolled: boolean;
}

/** Runs `change` on an auction (404 when there is none) under its facility's lock. */
export async function changeUnderLock<T>(
  db: Db,
  auctionId: string,
  change: (locked: LockedAuction) => Promise<T>,
): Promise<T> {
  const first = await findAuction(db, auctionId);
  if (!first) throw notFound('The auction');
  return db.transaction().execute(async (trx) => {
    const { now, charityEnrolled } = (await lockFacility(trx, first.facility_id))!;
    const row = (await auctionRow(trx, auctionId))!;
    return change({ trx, row, now, charityEnrolled });
  });
}

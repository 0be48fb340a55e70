// How an Active auction closes: sold, when the marketplace reports a sale (Active → ClosedSold),
// or unsold, when its endsAt passes with no sale reported (Active → ClosedUnsold, by the job
// auctions.close-ended every minute and at the earliest end of each create).
import { AppError, validationFailed } from '../errors.ts';
import type { AuctionDeps } from './deps.ts';
import { changeUnderLock } from './facility-lock.ts';
import { getAuction } from './reads.ts';
import * as repo from './repository.ts';
import { hasAtMostTwoDecimals } from './validation.ts';
import type { AuctionView } from './views.ts';

export interface Sale {
  salePrice: number;
  soldAt?: string;
  buyerName?: string;
}

/** The marketplace reports a sale: Active → ClosedSold. */
export async function reportSale(
  deps: Pick<AuctionDeps, 'db' | 'config'>,
  actor: string,
  auctionId: string,
  sale: Sale,
): Promise<AuctionView> {
  const faults: { path: string; message: string }[] = [];
  if (!Number.isFinite(sale.salePrice) || sale.salePrice < 0 || !hasAtMostTwoDecimals(sale.salePrice)) {
    faults.push({ path: 'salePrice', message: 'must be a non-negative amount with at most two decimals' });
  }
  if (sale.soldAt !== undefined && Number.isNaN(Date.parse(sale.soldAt))) {
    faults.push({ path: 'soldAt', message: 'must be an ISO 8601 date-time' });
  }
  if (faults.length > 0) throw validationFailed(faults);
  await changeUnderLock(deps.db, auctionId, async ({ trx, row, now }) => {
    if (row.status !== 'Active') {
      throw new AppError(
        409,
        'AUCTION_NOT_ACTIVE',
        `The auction is ${row.status}; only an Active auction can be sold.`,
      );
    }
    const soldAt = sale.soldAt ? new Date(sale.soldAt).toISOString() : now.toISOString();
    await repo.transitionAuctions(trx, [row.id], 'reportSale', {
      actor,
      reason: 'SALE_REPORTED',
      now,
      sale: { salePrice: Math.round(sale.salePrice * 100) / 100, soldAt, buyerName: sale.buyerName ?? null },
    });
  });
  return getAuction(deps, auctionId);
}

/** Closes the Active auctions whose endsAt has passed (ClosedUnsold), one facility at a time. */
export async function closeEnded(deps: Pick<AuctionDeps, 'db'>, now: Date = new Date()): Promise<number> {
  let closed = 0;
  for (;;) {
    const facilities = await repo.facilitiesWithEnded(deps.db, now);
    if (facilities.length === 0) return closed;
    for (const facilityId of facilities) {
      closed += await deps.db.transaction().execute(async (trx) => {
        const lock = await repo.lockFacility(trx, facilityId);
        const ids = await repo.endedAuctions(trx, facilityId, now);
        // Recorded at the later of the clock and the cut-off, so that closedAt is never before endsAt.
        const at = lock && lock.now > now ? lock.now : now;
        const change = { actor: 'system:closing', reason: 'ENDED_UNSOLD', now: at };
        return (await repo.transitionAuctions(trx, ids, 'endUnsold', change)).length;
      });
    }
  }
}

// Auctions that left Pending (activated, cancelled, withdrawn): the support room is told, in the
// caller's transaction, and its AUCTION_PENDING groups resolve once none of their auctions is still
// Pending — which this face says (repository.ts: pendingAmong), after the status change.
import type { Db } from '../db/tables.ts';
import type { AuctionDeps } from './deps.ts';
import { pendingAmong } from './repository.ts';

export async function leftPending(
  deps: Pick<AuctionDeps, 'support'>,
  trx: Db,
  auctionIds: string[],
  change: { now: Date; actor: string },
  resolution: 'ACTIVATED' | 'CANCELLED',
): Promise<void> {
  if (auctionIds.length === 0) return;
  await deps.support.settleAuctions(
    trx,
    auctionIds,
    { now: change.now, actor: change.actor, resolution },
    pendingAmong,
  );
}

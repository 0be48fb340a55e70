// Cancels: a partner's (PUT /api/3/cancelauctions, one unit), support's (an auction by id), and
// the withdrawal of a unit absent from a full list (import.ts) — all applied by `applyCancel`.
import type { PartnerPrincipal } from '../http/caller.ts';
import { AppError } from '../errors.ts';
import type { Db } from '../db/tables.ts';
import { recreateWaitMs, type AuctionDeps } from './deps.ts';
import { EnvelopeError } from './envelope.ts';
import { changeUnderLock } from './facility-lock.ts';
import type { AuctionStatus } from './model.ts';
import { leftPending } from './left-pending.ts';
import { invalidBody, partnerActor, partnerFacilityToWrite } from './partner.ts';
import { getAuction } from './reads.ts';
import * as repo from './repository.ts';
import { validateCancelRequest } from './validation.ts';
import type { AuctionView } from './views.ts';

/**
 * Cancels the open ones of these auctions (`cancel`) or withdraws them (`withdraw`), in the
 * caller's transaction: the status change with its history, and their Pending notifications resolved.
 */
export async function applyCancel(
  deps: Pick<AuctionDeps, 'support'>,
  trx: Db,
  auctionIds: string[],
  trigger: 'cancel' | 'withdraw',
  change: { actor: string; reason: string; note?: string | null; now: Date },
): Promise<void> {
  if (auctionIds.length === 0) return;
  await repo.transitionAuctions(trx, auctionIds, trigger, change);
  await leftPending(deps, trx, auctionIds, change, 'CANCELLED');
}

export interface CancelAnswer {
  auctionId: string;
  unitId: string;
  status: AuctionStatus;
  cancelledAt: string | null;
  recreateAfter: string | null;
  closedAt?: string | null;
}

/** A partner cancels the auction of one unit: acknowledged, or refused as a whole. */
export async function cancelAuction(
  deps: Pick<AuctionDeps, 'db' | 'config' | 'support'>,
  partner: PartnerPrincipal,
  body: unknown,
): Promise<CancelAnswer> {
  const validated = validateCancelRequest(body);
  if (!validated.ok) throw invalidBody(validated.faults);
  const { guid, clientType, unitId, reason } = validated.value;
  const facility = await partnerFacilityToWrite(deps.db, partner, guid, clientType);
  const actor = partnerActor(partner);
  const waitMs = recreateWaitMs(deps.config);
  const path = 'cancelAuctionIds[0].unitId';
  return deps.db.transaction().execute(async (trx) => {
    const { now } = (await repo.lockFacility(trx, facility.id))!;
    const auction = await repo.currentAuctionOfUnit(trx, facility.id, unitId);
    if (!auction) {
      throw new EnvelopeError(404, [
        { code: 'UNIT_NOT_FOUND', message: `The unit ${unitId} has no auction at facility ${guid}.`, path },
      ]);
    }
    const state = (cancelledAt: Date | null): CancelAnswer => ({
      auctionId: auction.id,
      unitId,
      status: auction.status as AuctionStatus,
      cancelledAt: cancelledAt?.toISOString() ?? null,
      recreateAfter: cancelledAt ? new Date(cancelledAt.getTime() + waitMs).toISOString() : null,
    });
    if (auction.status === 'Cancelled') {
      const warning = {
        code: 'ALREADY_CANCELLED',
        message: `The auction of unit ${unitId} is already cancelled.`,
        path,
      };
      throw new EnvelopeError(409, [], [warning], state(auction.cancelled_at));
    }
    if (auction.status === 'ClosedSold' || auction.status === 'ClosedUnsold') {
      const warning = {
        code: 'ALREADY_CLOSED',
        message: `The auction of unit ${unitId} is already closed (${auction.status}).`,
        path,
      };
      throw new EnvelopeError(409, [], [warning], {
        ...state(null),
        closedAt: auction.closed_at?.toISOString() ?? null,
      });
    }
    await applyCancel(deps, trx, [auction.id], 'cancel', { actor, reason: 'CANCEL_REQUESTED', note: reason, now });
    return { ...state(now), status: 'Cancelled' as const };
  });
}

/** Support cancels an open auction. */
export async function cancelBySupport(
  deps: Pick<AuctionDeps, 'db' | 'config' | 'support'>,
  actor: string,
  auctionId: string,
  note: string | null,
): Promise<AuctionView> {
  await changeUnderLock(deps.db, auctionId, async ({ trx, row, now }) => {
    if (row.status !== 'Pending' && row.status !== 'Active') {
      throw new AppError(409, 'AUCTION_NOT_OPEN', `The auction is already ${row.status}.`);
    }
    await applyCancel(deps, trx, [row.id], 'cancel', { actor, reason: 'CANCELLED_BY_SUPPORT', note, now });
  });
  return getAuction(deps, auctionId);
}

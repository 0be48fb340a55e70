// Enrols a facility in the charity programme (or withdraws it). Enrolment activates its Pending
// charity auctions that nothing else holds; those still incomplete stay Pending for that alone.
// Withdrawal holds the facility's later charity auctions as Pending; its Active ones stay.
import { notFound } from '../errors.ts';
import { type EntityId, isEntityId } from '../ids.ts';
import type { AuctionDeps } from './deps.ts';
import type { PendingReason } from './model.ts';
import * as repo from './repository.ts';
import { wakeForAuctions } from './jobs.ts';
import { leftPending } from './left-pending.ts';

export interface Enrolment {
  facilityId: EntityId;
  guid: string | null;
  charityEnrolled: boolean;
  /** Pending charity auctions that became Active. */
  activated: string[];
  /** Pending charity auctions still held for another reason (INCOMPLETE). */
  stillPending: string[];
}

export async function setCharityEnrolment(
  deps: Pick<AuctionDeps, 'db' | 'queue' | 'support'>,
  actor: string,
  facilityId: EntityId,
  enrolled: boolean,
): Promise<Enrolment> {
  if (!isEntityId(facilityId)) throw notFound('The facility');
  return deps.db.transaction().execute(async (trx) => {
    const lock = await repo.lockFacility(trx, facilityId);
    if (!lock) throw notFound('The facility');
    const { now } = lock;
    const facility = await repo.setCharityEnrolled(trx, facilityId, enrolled);
    const activated: string[] = [];
    const stillPending: string[] = [];
    if (enrolled) {
      const held = await repo.pendingForCharity(trx, facilityId);
      for (const a of held)
        (a.pending_reasons.every((r) => r === 'CHARITY_NOT_ENROLLED') ? activated : stillPending).push(a.id);
      await repo.transitionAuctions(trx, activated, 'activate', { actor, reason: 'CHARITY_ENROLLED', now });
      await leftPending(deps, trx, activated, { now, actor }, 'ACTIVATED');
      for (const id of stillPending) {
        const row = held.find((h) => h.id === id)!;
        const reasons = row.pending_reasons.filter((r) => r !== 'CHARITY_NOT_ENROLLED') as PendingReason[];
        const note = `still pending: ${reasons.join(', ')}`;
        await repo.transitionAuctions(trx, [id], 'amend', {
          actor,
          reason: 'CHARITY_ENROLLED',
          note,
          now,
          pendingReasons: reasons,
        });
      }
      if (activated.length > 0) await wakeForAuctions(deps.queue, trx, false, await repo.endsOf(trx, activated));
    }
    return {
      facilityId: facility.id,
      guid: facility.guid,
      charityEnrolled: facility.charity_enrolled,
      activated,
      stillPending,
    };
  });
}

// Support changes a Pending auction (PATCH /admin/auctions/{id}): its type (e.g. Charity → Lien)
// and/or the fields it lacked. It becomes Active when nothing holds it any more; otherwise it
// stays Pending with its new reasons. An Active auction's content is immutable.
import { AppError, validationFailed } from '../errors.ts';
import type { AuctionDeps } from './deps.ts';
import { changeUnderLock } from './facility-lock.ts';
import { replaceImages } from './images-repository.ts';
import type { UnitRecord } from './model.ts';
import { getAuction } from './reads.ts';
import * as repo from './repository.ts';
import { pendingReasons, validateAmendedRecord } from './validation.ts';
import type { AuctionView } from './views.ts';
import { wakeForAuctions } from './jobs.ts';
import { leftPending } from './left-pending.ts';

export async function amendPending(
  deps: Pick<AuctionDeps, 'db' | 'config' | 'queue' | 'support'>,
  actor: string,
  auctionId: string,
  patch: Record<string, unknown>,
): Promise<AuctionView> {
  await changeUnderLock(deps.db, auctionId, async ({ trx, row, now, charityEnrolled }) => {
    if (row.status !== 'Pending') {
      throw new AppError(
        409,
        'AUCTION_NOT_PENDING',
        `The auction is ${row.status}; ` +
          `only a Pending auction can be changed (an Active auction's content is immutable: ` +
          `cancel it and create it again).`,
      );
    }
    const stored = row.record as unknown as UnitRecord;
    const validated = validateAmendedRecord(stored, patch, { allowHosts: deps.config.imageFetchAllowHosts });
    if (!validated.ok) throw validationFailed(validated.faults.map((f) => ({ path: f.path, message: f.message })));
    const next = validated.value;
    if (next.endsAt && next.endsAt.getTime() <= now.getTime()) {
      throw validationFailed([{ path: 'endsAt', message: 'has passed; an auction cannot end in the past' }]);
    }
    await repo.updatePendingRecord(trx, row.id, now, next.record, next.contentHash, next.startsAt, next.endsAt);
    const imagesChanged = JSON.stringify(next.record.imageUrls) !== JSON.stringify(stored.imageUrls);
    if (imagesChanged) await replaceImages(trx, now, row.id, next.record.imageUrls);
    const reasons = pendingReasons(next.record, charityEnrolled);
    const changedType = next.record.auctionType !== stored.auctionType;
    const why =
      changedType && Object.keys(patch).every((k) => k === 'auctionType') ? 'TYPE_CHANGED' : 'RECORD_COMPLETED';
    if (reasons.length === 0) {
      await repo.transitionAuctions(trx, [row.id], 'activate', { actor, reason: why, now });
      await leftPending(deps, trx, [row.id], { now, actor }, 'ACTIVATED');
      await wakeForAuctions(deps.queue, trx, imagesChanged, [{ status: 'Active', endsAt: next.endsAt }]);
    } else {
      const note = `still pending: ${reasons.join(', ')}`;
      await repo.transitionAuctions(trx, [row.id], 'amend', { actor, reason: why, note, now, pendingReasons: reasons });
      await wakeForAuctions(deps.queue, trx, imagesChanged, []);
    }
  });
  return getAuction(deps, auctionId);
}

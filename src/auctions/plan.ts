// The full-list sync plan (SPEC.md §3.1 rules 3–5), a pure function: given a facility's open
// auctions, its recent cancellations and the partner's full list, what happens to each unit.
import type { AuctionStatus, PendingReason, ValidRecord } from './model.ts';
import { pendingReasons } from './validation.ts';

/** The latest auction of a unit of the facility (its open one, if it has one). */
export interface LatestAuction {
  auctionId: string;
  unitId: string;
  status: AuctionStatus;
  contentHash: string;
  cancelledAt: Date | null;
}

export interface FacilityAuctionState {
  /** Per unit, its latest auction (an open auction is always the latest). */
  latest: ReadonlyMap<string, LatestAuction>;
  charityEnrolled: boolean;
}

export interface PlanPolicy {
  recreateWaitMs: number;
}

export type PlannedUnit =
  | { outcome: 'created'; unitId: string; status: 'Active'; record: ValidRecord }
  | { outcome: 'pending'; unitId: string; status: 'Pending'; reasons: PendingReason[]; record: ValidRecord }
  | { outcome: 'unchanged'; unitId: string; auctionId: string; status: AuctionStatus; contentChanged: boolean }
  | { outcome: 'deferred'; unitId: string; auctionId: string; status: 'Cancelled'; retryAfter: Date }
  | { outcome: 'removed'; unitId: string; auctionId: string; from: AuctionStatus };

export interface SyncPlan {
  /** One entry per listed unit, in list order, then one per withdrawn unit. */
  units: PlannedUnit[];
  summary: { created: number; pending: number; unchanged: number; deferred: number; removed: number };
  /** Listed units that would start an auction that has already ended: the list is refused. */
  ended: { index: number; unitId: string }[];
}

/**
 * For each listed unit:
 *  - an open auction → `unchanged` (contentChanged says whether the record differs);
 *  - its last auction was cancelled less than the wait ago → `deferred` until the wait is over;
 *  - its last auction closed (sold or unsold) and the record is the same → `unchanged`: the same
 *    record does not start the same auction again (a sold unit is not put up twice);
 *  - otherwise a new auction: `created` (Active) or `pending` (with its reasons) — unless its
 *    endsAt has already passed, which refuses the list (`ended`).
 * Each open auction whose unit is absent → `removed`.
 */
export function planSync(
  state: FacilityAuctionState,
  records: readonly ValidRecord[],
  now: Date,
  policy: PlanPolicy,
): SyncPlan {
  const listed = new Set<string>();
  const units: PlannedUnit[] = [];
  const ended: SyncPlan['ended'] = [];
  const summary = { created: 0, pending: 0, unchanged: 0, deferred: 0, removed: 0 };

  records.forEach((valid, index) => {
    const unitId = valid.record.unitId;
    listed.add(unitId);
    const latest = state.latest.get(unitId);
    if (latest && (latest.status === 'Pending' || latest.status === 'Active')) {
      units.push({
        outcome: 'unchanged',
        unitId,
        auctionId: latest.auctionId,
        status: latest.status,
        contentChanged: latest.contentHash !== valid.contentHash,
      });
      summary.unchanged++;
      return;
    }
    if (
      latest?.status === 'Cancelled' &&
      latest.cancelledAt &&
      now.getTime() - latest.cancelledAt.getTime() < policy.recreateWaitMs
    ) {
      const retryAfter = new Date(latest.cancelledAt.getTime() + policy.recreateWaitMs);
      units.push({ outcome: 'deferred', unitId, auctionId: latest.auctionId, status: 'Cancelled', retryAfter });
      summary.deferred++;
      return;
    }
    if (
      latest &&
      (latest.status === 'ClosedSold' || latest.status === 'ClosedUnsold') &&
      latest.contentHash === valid.contentHash
    ) {
      units.push({
        outcome: 'unchanged',
        unitId,
        auctionId: latest.auctionId,
        status: latest.status,
        contentChanged: false,
      });
      summary.unchanged++;
      return;
    }
    if (valid.endsAt && valid.endsAt.getTime() <= now.getTime()) ended.push({ index, unitId });
    const reasons = pendingReasons(valid.record, state.charityEnrolled);
    if (reasons.length > 0) {
      units.push({ outcome: 'pending', unitId, status: 'Pending', reasons, record: valid });
      summary.pending++;
    } else {
      units.push({ outcome: 'created', unitId, status: 'Active', record: valid });
      summary.created++;
    }
  });

  for (const latest of state.latest.values()) {
    if (listed.has(latest.unitId) || (latest.status !== 'Pending' && latest.status !== 'Active')) continue;
    units.push({ outcome: 'removed', unitId: latest.unitId, auctionId: latest.auctionId, from: latest.status });
    summary.removed++;
  }
  return { units, summary, ended };
}

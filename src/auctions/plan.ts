// The full-list sync plan (SPEC.md §3.1 rules 3–5), a pure function: given a facility's open
// auctions, its recent cancellations and the partner's full list, what happens to each unit.
import type { AuctionStatus, PendingReason, ValidRecord } from './model.ts';
import { pendingReasons } from './validation.ts';

export interface OpenAuction {
  auctionId: string;
  unitId: string;
  status: AuctionStatus;
  contentHash: string;
}

export interface FacilityAuctionState {
  /** The facility's Pending and Active auctions (at most one per unit). */
  open: readonly OpenAuction[];
  /** Each unit's last cancelled auction, for units cancelled within the re-create wait. */
  lastCancelled: ReadonlyMap<string, { auctionId: string; cancelledAt: Date }>;
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
}

export function planSync(state: FacilityAuctionState, records: readonly ValidRecord[], now: Date, policy: PlanPolicy): SyncPlan {
  const openByUnit = new Map(state.open.map((a) => [a.unitId, a]));
  const listed = new Set<string>();
  const units: PlannedUnit[] = [];
  const summary = { created: 0, pending: 0, unchanged: 0, deferred: 0, removed: 0 };

  for (const valid of records) {
    const unitId = valid.record.unitId;
    listed.add(unitId);
    const open = openByUnit.get(unitId);
    if (open) {
      units.push({ outcome: 'unchanged', unitId, auctionId: open.auctionId, status: open.status, contentChanged: open.contentHash !== valid.contentHash });
      summary.unchanged++;
      continue;
    }
    const cancelled = state.lastCancelled.get(unitId);
    if (cancelled && now.getTime() - cancelled.cancelledAt.getTime() < policy.recreateWaitMs) {
      const retryAfter = new Date(cancelled.cancelledAt.getTime() + policy.recreateWaitMs);
      units.push({ outcome: 'deferred', unitId, auctionId: cancelled.auctionId, status: 'Cancelled', retryAfter });
      summary.deferred++;
      continue;
    }
    const reasons = pendingReasons(valid.record, state.charityEnrolled);
    if (reasons.length > 0) {
      units.push({ outcome: 'pending', unitId, status: 'Pending', reasons, record: valid });
      summary.pending++;
    } else {
      units.push({ outcome: 'created', unitId, status: 'Active', record: valid });
      summary.created++;
    }
  }

  for (const open of state.open) {
    if (listed.has(open.unitId)) continue;
    units.push({ outcome: 'removed', unitId: open.unitId, auctionId: open.auctionId, from: open.status });
    summary.removed++;
  }
  return { units, summary };
}

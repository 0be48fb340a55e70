// How auctions read back (GET /api/3/auctions…, the admin routes, the console). Pure: rows in,
// views out. The keyset pages of the lists: http/pages.ts.
import type { EntityId } from '../ids.ts';
import type { ImageRow } from './images-repository.ts';
import type { ActivationField, AuctionStatus, AuctionType, PendingReason, UnitRecord } from './model.ts';
import type { AuctionRow, HistoryRow } from './repository.ts';
import { missingForActivation } from './validation.ts';

/** Where a stored image is served (media.ts reads the name back). */
export const mediaPath = (sha256: string, ext: string) => `/media/${sha256}.${ext}`;

export interface ImageView {
  position: number;
  sourceUrl: string;
  status: 'pending' | 'stored' | 'failed';
  error: string | null;
  attempts: number;
  url: string | null;
  contentType: string | null;
  bytes: number | null;
  width: number | null;
  height: number | null;
  sha256: string | null;
}

export interface HistoryView {
  at: string;
  from: AuctionStatus | null;
  to: AuctionStatus;
  trigger: string;
  actor: string;
  reason: string;
  note: string | null;
}

export interface AuctionView {
  auctionId: string;
  guid: string | null;
  facilityId: EntityId;
  unitId: string;
  unitName: string;
  auctionType: AuctionType;
  status: AuctionStatus;
  pendingReasons: PendingReason[];
  /** With INCOMPLETE among the pending reasons: the fields activation needs that the record lacks. */
  missingFields?: ActivationField[];
  record: UnitRecord;
  startsAt: string | null;
  endsAt: string | null;
  createdAt: string;
  updatedAt: string;
  cancelledAt: string | null;
  recreateAfter: string | null;
  closedAt: string | null;
  sale: { salePrice: number; soldAt: string; buyerName: string | null } | null;
  images?: ImageView[];
  history?: HistoryView[];
}

export function auctionSummary(row: AuctionRow, recreateWaitMs: number): AuctionView {
  const cancelled = row.cancelled_at && row.status === 'Cancelled';
  const pendingReasons = row.pending_reasons as PendingReason[];
  const record = row.record as unknown as UnitRecord;
  return {
    auctionId: row.id,
    guid: row.guid,
    facilityId: row.facility_id,
    unitId: row.unit_id,
    unitName: row.unit_name,
    auctionType: row.auction_type as AuctionType,
    status: row.status as AuctionStatus,
    pendingReasons,
    ...(pendingReasons.includes('INCOMPLETE') ? { missingFields: missingForActivation(record) } : {}),
    record,
    startsAt: row.starts_at?.toISOString() ?? null,
    endsAt: row.ends_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    cancelledAt: row.cancelled_at?.toISOString() ?? null,
    recreateAfter: cancelled ? new Date(row.cancelled_at!.getTime() + recreateWaitMs).toISOString() : null,
    closedAt: row.closed_at?.toISOString() ?? null,
    sale: row.sale ?? null,
  };
}

/** The whole auction: record, status, images and history. */
export function auctionDetail(
  row: AuctionRow,
  recreateWaitMs: number,
  images: ImageRow[],
  history: HistoryRow[],
): AuctionView {
  return { ...auctionSummary(row, recreateWaitMs), images: images.map(imageView), history: history.map(historyView) };
}

export function imageView(r: ImageRow): ImageView {
  const stored = r.status === 'stored' && r.sha256 !== null && r.extension !== null;
  return {
    position: r.position,
    sourceUrl: r.source_url,
    status: r.status as ImageView['status'],
    error: r.error,
    attempts: r.attempts,
    url: stored ? mediaPath(r.sha256!, r.extension!) : null,
    contentType: stored ? r.content_type : null,
    bytes: stored ? r.bytes : null,
    width: stored ? r.width : null,
    height: stored ? r.height : null,
    sha256: stored ? r.sha256 : null,
  };
}

export function historyView(h: HistoryRow): HistoryView {
  return {
    at: h.at.toISOString(),
    from: h.from_status as AuctionStatus | null,
    to: h.to_status as AuctionStatus,
    trigger: h.trigger,
    actor: h.actor,
    reason: h.reason,
    note: h.note,
  };
}

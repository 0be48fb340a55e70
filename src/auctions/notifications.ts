// Support notifications (SPEC.md §3.5): every Pending auction, every image that could not be
// fetched after its retries and every background job that exhausted its retries becomes a row
// (kept and listed), a log line (always) and a POST to SUPPORT_WEBHOOK_URL (when set). The table
// is the outbox: rows are written in the transaction that caused them, with the wake-up of their
// delivery (deliver-notifications.ts), which then happens after the commit, with retries.
import type { EntityId } from '../ids.ts';
import { notFound, validationFailed } from '../errors.ts';
import { isOpaqueId } from '../ids.ts';
import type { Db } from '../db/tables.ts';
import type { AuctionDeps } from './deps.ts';
import * as repo from './notifications-repository.ts';
import { cursor, pageOf, type Page } from './views.ts';
import { wake } from './wake-ups.ts';

export type NotificationKind = 'AUCTION_PENDING' | 'IMAGE_FETCH_FAILED' | 'JOB_FAILED' | 'WEBHOOK_DISABLED';

export interface NewNotification {
  kind: NotificationKind;
  reason: string | null;
  message: string;
  facilityId: EntityId | null;
  auctionId: string | null;
  detail: Record<string, unknown>;
}

export type DeliveryStatus = 'disabled' | 'pending' | 'delivered' | 'failed';

/** A stored notification: what was raised, and what became of it. */
export interface NotificationView extends NewNotification {
  id: string;
  createdAt: string;
  resolvedAt: string | null;
  resolvedBy: string | null;
  resolution: string | null;
  delivery: { status: DeliveryStatus; attempts: number; lastError: string | null; deliveredAt: string | null };
}

export function notificationView(r: repo.NotificationRow): NotificationView {
  return {
    id: r.id,
    kind: r.kind as NotificationKind,
    reason: r.reason,
    message: r.message,
    facilityId: r.facility_id,
    auctionId: r.auction_id,
    detail: r.detail,
    createdAt: r.created_at.toISOString(),
    resolvedAt: r.resolved_at?.toISOString() ?? null,
    resolvedBy: r.resolved_by,
    resolution: r.resolution,
    delivery: {
      status: r.delivery_status as DeliveryStatus,
      attempts: r.delivery_attempts,
      lastError: r.delivery_error,
      deliveredAt: r.delivered_at?.toISOString() ?? null,
    },
  };
}

/**
 * Writes notifications in the caller's transaction and wakes their delivery in it. Call
 * `logNotifications` with the result once the transaction has committed.
 */
export async function raiseNotifications(
  deps: Pick<AuctionDeps, 'config' | 'queue'>,
  trx: Db,
  now: Date,
  items: NewNotification[],
): Promise<NotificationView[]> {
  if (items.length === 0) return [];
  const delivery = deps.config.supportWebhookUrl ? 'pending' : 'disabled';
  const rows = await repo.insertNotifications(trx, now, delivery, items);
  if (delivery === 'pending') await wake(deps.queue, 'deliverNotifications', { trx });
  return rows.map(notificationView);
}

/** The log is a channel of its own: one warning per notification. */
export function logNotifications(logger: AuctionDeps['logger'], created: NotificationView[]): void {
  for (const n of created) {
    const notification = { id: n.id, kind: n.kind, reason: n.reason, facilityId: n.facilityId, auctionId: n.auctionId };
    logger.warn({ notification }, `support notification: ${n.message}`);
  }
}

/** Marks the open notifications of these auctions resolved (the auction left Pending). */
export async function resolveAuctionNotifications(
  trx: Db,
  auctionIds: string[],
  now: Date,
  actor: string,
  resolution: 'ACTIVATED' | 'CANCELLED',
): Promise<void> {
  if (auctionIds.length === 0) return;
  await repo.resolvePendingOfAuctions(trx, auctionIds, { now, actor, resolution });
}

/** Support marks a notification resolved (404 when there is none). */
export async function resolveNotification(
  deps: Pick<AuctionDeps, 'db'>,
  id: string,
  actor: string,
  resolution: string,
): Promise<NotificationView> {
  const row = isOpaqueId(id) ? await repo.resolveNotificationRow(deps.db, id, actor, resolution) : undefined;
  if (!row) throw notFound('The notification');
  return notificationView(row);
}

export interface NotificationQuery {
  state: 'open' | 'resolved' | 'all';
  kind?: NotificationKind;
  facilityId?: EntityId;
  auctionId?: string;
  limit: number;
  cursor?: string;
}

/** Newest first, a page at a time. */
export async function listNotifications(
  deps: Pick<AuctionDeps, 'db'>,
  query: NotificationQuery,
): Promise<{ notifications: NotificationView[] } & Page> {
  const after = query.cursor ? cursor.decode(query.cursor) : undefined;
  if (after === null) throw validationFailed([{ path: 'cursor', message: 'is not a cursor this service issued' }]);
  const { state, kind, facilityId, auctionId, limit } = query;
  const rows = await repo.listNotificationRows(deps.db, { state, kind, facilityId, auctionId, after, limit });
  const { items, ...page } = pageOf(rows.map(notificationView), limit, (n) => [n.createdAt, n.id]);
  return { notifications: items, ...page };
}

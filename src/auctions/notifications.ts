// Support notifications (SPEC.md §3.5): every Pending auction, every image that could not be
// fetched after its retries, every background job that exhausted its retries and every webhook
// subscription the push face disabled is kept and listed, logged (always) and POSTed to
// SUPPORT_WEBHOOK_URL (when set). Occurrences of one kind for one facility are grouped while open
// (one row that counts them and keeps the first 100), so a bad list cannot flood support. The table
// is the outbox: rows are written in the transaction that caused them, with the wake-up of their
// delivery (deliver-notifications.ts), which then happens after the commit, with retries.
import type { EntityId } from '../ids.ts';
import { notFound, validationFailed } from '../errors.ts';
import { isOpaqueId } from '../ids.ts';
import type { Db } from '../db/tables.ts';
import type { AuctionDeps } from './deps.ts';
import * as repo from './notifications-repository.ts';
import { cursor, newestFirst, pageOf, type Page } from './views.ts';
import { wake } from './wake-ups.ts';
import { LIMITS, type NotificationKind } from './model.ts';

export type { NotificationKind } from './model.ts';

/** One occurrence, as its raiser describes it. */
export interface NewNotification {
  kind: NotificationKind;
  reason: string | null;
  /** Says this one occurrence; the group's message is made from it and the count. */
  message: string;
  facilityId: EntityId | null;
  auctionId: string | null;
  detail: Record<string, unknown>;
  /** The group within the kind; by default as `groupKeyOf` says. */
  groupKey?: string;
}

/**
 * The group of an occurrence within its kind: the facility when there is one; else the
 * subscription of WEBHOOK_DISABLED, the queue of JOB_FAILED (a failing kind of job is one group,
 * not mixed with others), or one group for the kind.
 */
export function groupKeyOf(n: NewNotification): string {
  if (n.groupKey) return n.groupKey;
  if (n.facilityId !== null) return `facility:${n.facilityId}`;
  if (n.kind === 'WEBHOOK_DISABLED' && n.detail.subscriptionId)
    return `subscription:${String(n.detail.subscriptionId)}`;
  if (n.kind === 'JOB_FAILED' && n.detail.queue) return `queue:${String(n.detail.queue)}`;
  return 'none';
}

export type DeliveryStatus = 'disabled' | 'pending' | 'delivered' | 'failed';

export type NotificationItem = repo.NotificationItem;

/** A stored notification group: what was raised, how often, and what became of it. */
export interface NotificationView {
  id: string;
  kind: NotificationKind;
  /** The first occurrence's reason, facility, auction and detail (each occurrence's are in `items`). */
  reason: string | null;
  /** Says the count when there is more than one occurrence. */
  message: string;
  facilityId: EntityId | null;
  auctionId: string | null;
  detail: Record<string, unknown>;
  count: number;
  /** The first LIMITS.notificationGroupItems occurrences, oldest first. */
  items: NotificationItem[];
  createdAt: string;
  lastOccurredAt: string;
  resolvedAt: string | null;
  resolvedBy: string | null;
  resolution: string | null;
  delivery: { status: DeliveryStatus; attempts: number; lastError: string | null; deliveredAt: string | null };
}

/** What a count of occurrences of each kind says, and where. */
const COUNTED: Record<NotificationKind, (n: number, where: string, detail: Record<string, unknown>) => string> = {
  AUCTION_PENDING: (n, where) => `${n} auctions${where} were held Pending`,
  IMAGE_FETCH_FAILED: (n, where) => `${n} images of auctions${where} could not be retrieved after every retry`,
  JOB_FAILED: (n, where, d) =>
    `${n} runs of the background job${d.queue == null ? 's' : ` ${String(d.queue)}`}${where} failed after every retry`,
  WEBHOOK_DISABLED: (n, where, d) =>
    `The webhook subscription${d.subscriptionId == null ? '' : ` ${String(d.subscriptionId)}`}${where} was disabled ${n} times`,
};

/** The group's message: the occurrence's own when it is alone, else the count, then the first. */
export function groupMessage(kind: NotificationKind, count: number, first: string, detail: Record<string, unknown>) {
  if (count <= 1) return first;
  const facility = detail.guid ?? detail.facilityName;
  const where = typeof facility === 'string' ? ` at facility ${facility}` : '';
  return `${COUNTED[kind](count, where, detail)}. The first: ${first}`;
}

export function notificationView(r: repo.NotificationRow): NotificationView {
  const kind = r.kind as NotificationKind;
  return {
    id: r.id,
    kind,
    reason: r.reason,
    message: groupMessage(kind, r.occurrences, r.message, r.detail),
    facilityId: r.facility_id,
    auctionId: r.auction_id,
    detail: r.detail,
    count: r.occurrences,
    items: r.items,
    createdAt: r.created_at.toISOString(),
    lastOccurredAt: r.last_occurred_at.toISOString(),
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

/** The occurrences of one raise, one entry per group (a statement cannot update a row twice), by key. */
export function groupOccurrences(now: Date, items: NewNotification[]): repo.GroupInsert[] {
  const groups = new Map<string, repo.GroupInsert>();
  for (const n of items) {
    const groupKey = groupKeyOf(n);
    const key = `${n.kind}\u0000${groupKey}`;
    const item: NotificationItem = {
      occurredAt: now.toISOString(),
      reason: n.reason,
      auctionId: n.auctionId,
      message: n.message,
      detail: n.detail,
    };
    const group = groups.get(key);
    if (group) {
      group.occurrences++;
      if (group.items.length < LIMITS.notificationGroupItems) group.items.push(item);
    } else {
      const { kind, reason, message, facilityId, auctionId, detail } = n;
      groups.set(key, {
        kind,
        groupKey,
        reason,
        message,
        facilityId,
        auctionId,
        detail,
        occurrences: 1,
        items: [item],
      });
    }
  }
  // In one order of keys for every raiser: two raises that touch the same groups lock them in the
  // same order, and never deadlock.
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, group]) => group);
}

/**
 * Raises notifications in the caller's transaction and wakes their delivery in it: each opens
 * its group, or counts in the open one of its kind and key. Returns the groups raised (as they
 * now stand); call `logNotifications` with them once the transaction has committed. Other faces
 * (push: WEBHOOK_DISABLED) call this in their own transactions.
 */
export async function raiseNotifications(
  deps: Pick<AuctionDeps, 'config' | 'queue'>,
  trx: Db,
  now: Date,
  items: NewNotification[],
): Promise<NotificationView[]> {
  if (items.length === 0) return [];
  const delivery = deps.config.supportWebhookUrl ? 'pending' : 'disabled';
  const groups = groupOccurrences(now, items);
  const rows = await repo.upsertGroups(trx, now, delivery, groups, {
    items: LIMITS.notificationGroupItems,
    resendAfterMinutes: LIMITS.notificationResendMinutes,
  });
  const idOf = new Map(rows.map((r) => [`${r.kind}\u0000${r.group_key}`, r.id]));
  const links = items.flatMap((n) =>
    n.auctionId ? [{ notificationId: idOf.get(`${n.kind}\u0000${groupKeyOf(n)}`)!, auctionId: n.auctionId }] : [],
  );
  await repo.linkAuctions(trx, links);
  if (delivery === 'pending') await wake(deps.queue, 'deliverNotifications', { trx });
  return rows.map(notificationView);
}

/** The log is a channel of its own: one warning per group raised, with its count. */
export function logNotifications(logger: AuctionDeps['logger'], raised: NotificationView[]): void {
  for (const n of raised) {
    const notification = {
      id: n.id,
      kind: n.kind,
      reason: n.reason,
      facilityId: n.facilityId,
      auctionId: n.auctionId,
      count: n.count,
    };
    logger.warn({ notification }, `support notification: ${n.message}`);
  }
}

/**
 * These auctions left Pending: the AUCTION_PENDING groups that cover them are resolved once none
 * of their auctions is still Pending.
 */
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
  const { items, ...page } = pageOf(
    rows.map(notificationView),
    limit,
    newestFirst((n) => [n.createdAt, n.id]),
  );
  return { notifications: items, ...page };
}

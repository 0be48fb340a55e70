// Support notifications (SPEC.md §3.5): every Pending auction, every image that could not be
// fetched after its retries, every background job that exhausted its retries and every webhook
// subscription the push face disabled is kept and listed, logged (always) and POSTed to
// SUPPORT_WEBHOOK_URL (when set). Occurrences of one kind for one facility are grouped while open
// (one row that counts them and keeps the first 100), so a bad list cannot flood support. The table
// is the outbox: rows are written in the transaction that caused them, with the wake-up of their
// delivery (deliver.ts), which then happens after the commit, with retries. Any face raises through
// `raise` (index.ts), handed to it by the composition root; each words its own message.
import type { EntityId } from '../ids.ts';
import { notFound, validationFailed } from '../errors.ts';
import { isOpaqueId } from '../ids.ts';
import type { Db } from '../db/tables.ts';
import { cursor, newestFirst, pageOf, type Page } from '../http/pages.ts';
import type { SupportDeps } from './deps.ts';
import { wakeDelivery } from './jobs.ts';
import * as repo from './repository.ts';
import {
  groupKeyOf,
  groupOccurrences,
  LIMITS,
  notificationView,
  type NewNotification,
  type NotificationKind,
  type NotificationView,
} from './rules.ts';

/**
 * Raises notifications in the caller's transaction and wakes their delivery in it: each opens
 * its group, or counts in the open one of its kind and key. Returns the groups raised (as they
 * now stand); call `logRaised` with them once the transaction has committed.
 */
export async function raise(
  deps: Pick<SupportDeps, 'config' | 'queue'>,
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
  if (delivery === 'pending') await wakeDelivery(deps.queue, { trx });
  return rows.map(notificationView);
}

/** The log is a channel of its own: one warning per group raised, with its count. */
export function logRaised(deps: Pick<SupportDeps, 'logger'>, raised: NotificationView[]): void {
  for (const n of raised) {
    const notification = {
      id: n.id,
      kind: n.kind,
      reason: n.reason,
      facilityId: n.facilityId,
      auctionId: n.auctionId,
      count: n.count,
    };
    deps.logger.warn({ notification }, `support notification: ${n.message}`);
  }
}

/** Which of these auctions are still held Pending, read in the caller's transaction (the auctions face says). */
export type StillPending = (trx: Db, auctionIds: string[]) => Promise<string[]>;

/**
 * These auctions left Pending: the items of the open AUCTION_PENDING groups that cover them say
 * how, and a group is resolved once none of its auctions is still Pending (`stillPending`, after
 * the caller changed their status in this transaction), so support never loses sight of one.
 */
export async function settleAuctions(
  trx: Db,
  auctionIds: string[],
  resolved: { now: Date; actor: string; resolution: 'ACTIVATED' | 'CANCELLED' },
  stillPending: StillPending,
): Promise<void> {
  if (auctionIds.length === 0) return;
  const groups = await repo.openGroupsCovering(trx, 'AUCTION_PENDING', auctionIds);
  if (groups.length === 0) return;
  const held = new Set(await stillPending(trx, [...new Set(groups.flatMap((g) => g.auction_ids))]));
  const done = groups.filter((g) => !g.auction_ids.some((id) => held.has(id))).map((g) => g.id);
  await repo.settleGroups(
    trx,
    groups.map((g) => g.id),
    done,
    auctionIds,
    resolved,
  );
}

/** Support marks a notification resolved (404 when there is none). */
export async function resolveNotification(
  deps: Pick<SupportDeps, 'db'>,
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
  deps: Pick<SupportDeps, 'db'>,
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

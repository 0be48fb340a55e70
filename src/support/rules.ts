// The support room's rules, as pure functions: the kinds of notification, how occurrences are
// grouped and what a group says, how a stored group reads back, what the support webhook sends and
// when it tries again, and how a failed POST is worded.
import type { EntityId } from '../ids.ts';
import type { RetrySchedule } from '../net/retry.ts';
import { webhookEnvelope, type WebhookAttempt } from '../net/webhook-sender.ts';
import type { GroupInsert, NotificationItem, NotificationRow } from './repository.ts';

/**
 * The kinds of support notification (SPEC §3.5): AUCTION_PENDING and IMAGE_FETCH_FAILED are raised
 * by the auctions face, JOB_FAILED by a dead-letter queue, WEBHOOK_DISABLED by the push face (§6.4).
 */
export const NOTIFICATION_KINDS = ['AUCTION_PENDING', 'IMAGE_FETCH_FAILED', 'JOB_FAILED', 'WEBHOOK_DISABLED'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export const LIMITS = {
  /** Occurrences a support notification group keeps (it counts them all). */
  notificationGroupItems: 100,
  /** A group that grew is sent to the support webhook again at most this often. */
  notificationResendMinutes: 15,
  /** POSTs of one state of a group to the support webhook before it is failed for good. */
  webhookAttempts: 8,
  /** A POST to the support webhook, whole. */
  webhookTimeoutMs: 10_000,
} as const;

/** The support webhook: 8 attempts in all, over about 2 hours (10 s, 30 s, 2 min, 5 min, 15 min, 30 min, 1 h). */
export const WEBHOOK_RETRY: RetrySchedule = { stepsSeconds: [10, 30, 120, 300, 900, 1800, 3600] };

/** One occurrence, as its raiser describes it (each raiser words its own message). */
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

/**
 * A stored notification group: what was raised, how often, and what became of it. Its kind, and its
 * first occurrence's reason, facility, auction and detail (each occurrence's are in `items`); its
 * message says the count when there is more than one occurrence.
 */
export interface NotificationView extends Omit<NewNotification, 'groupKey'> {
  id: string;
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

export function notificationView(r: NotificationRow): NotificationView {
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
export function groupOccurrences(now: Date, items: NewNotification[]): GroupInsert[] {
  const groups = new Map<string, GroupInsert>();
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
 * The `webhook-id` of a group as it stands: its id and its count. Retries of one state carry the
 * same id (a receiver deduplicates them); a group that grew is sent under a new one, so a receiver
 * that deduplicates on webhook-id still sees the update.
 */
export function supportWebhookId(row: Pick<NotificationRow, 'id' | 'occurrences'>): string {
  return `${row.id}.${row.occurrences}`;
}

/**
 * The body: `{id, type, createdAt, data}` as every webhook of the service (SPEC §6.4), `data` the
 * notification as GET /admin/notifications shows it; the fields receivers read before grouping
 * (kind, reason, message, facilityId, auctionId, detail, attempt) stay at the top level too.
 */
export function supportWebhookBody(row: NotificationRow): string {
  const data = notificationView(row);
  return webhookEnvelope(row.id, 'support.notification', data.createdAt, data, {
    kind: data.kind,
    reason: data.reason,
    message: data.message,
    facilityId: data.facilityId,
    auctionId: data.auctionId,
    detail: data.detail,
    count: data.count,
    attempt: row.delivery_attempts,
  });
}

/** A failed POST in the support webhook's words (`delivery.lastError`): `HTTP <status>`, `TIMEOUT`, or what the system said. */
export function deliveryError(attempt: WebhookAttempt): string | null {
  if (attempt.delivered) return null;
  if (attempt.failure === null) return `HTTP ${attempt.status}`;
  if (attempt.failure.code === 'TIMEOUT') return 'TIMEOUT';
  return attempt.failure.detail ?? attempt.failure.code;
}

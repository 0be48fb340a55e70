// Delivery of the support notifications to SUPPORT_WEBHOOK_URL (the job auctions.deliver-notifications):
// the due rows are claimed with a lease, POSTed as JSON signed per Standard Webhooks with
// SUPPORT_WEBHOOK_SECRET (SPEC §6.4; unsigned when no secret is set), and a failed POST is retried
// with back-off up to LIMITS.webhookAttempts times, then marked failed (and logged as an error).
// A group is sent when it opens, and again when it has grown, at most every
// LIMITS.notificationResendMinutes (notifications-repository.ts: upsertGroups).
import { drainUpTo, WEBHOOK_ANSWER_MAX_BYTES } from '../net/safe-fetch.ts';
import { signatureHeaders } from '../net/webhook-signature.ts';
import type { AuctionDeps } from './deps.ts';
import { LIMITS } from './model.ts';
import { claimDueDeliveries, recordDeliveryOutcome, type NotificationRow } from './notifications-repository.ts';
import { notificationView } from './notifications.ts';
import { retryDelayMs, WEBHOOK_RETRY_SECONDS } from './retry.ts';
import { wake } from './wake-ups.ts';

/** Per delivery attempt. */
const WEBHOOK_TIMEOUT_MS = 10_000;

/** Delivers the notifications whose delivery is due at `now`, oldest first. */
export async function deliverDueNotifications(
  deps: Pick<AuctionDeps, 'db' | 'config' | 'queue' | 'logger'>,
  now: Date = new Date(),
): Promise<{ delivered: number; retried: number; failed: number }> {
  const { db, logger } = deps;
  const counts = { delivered: 0, retried: 0, failed: 0 };
  const url = deps.config.supportWebhookUrl;
  if (!url) return counts;
  const secret = deps.config.supportWebhookSecret;
  let nextRetry: Date | null = null;
  for (;;) {
    const rows = await claimDueDeliveries(db, now);
    if (rows.length === 0) break;
    await Promise.all(
      rows.map(async (row) => {
        const error = await post(url, secret, row);
        const record = (outcome: Parameters<typeof recordDeliveryOutcome>[3]) =>
          recordDeliveryOutcome(db, row.id, row.occurrences, outcome, LIMITS.notificationResendMinutes);
        if (error === null) {
          counts.delivered++;
          await record({ status: 'delivered' });
        } else if (row.delivery_attempts >= LIMITS.webhookAttempts) {
          counts.failed++;
          await record({ status: 'failed', error });
          logger.error(
            { notification: { id: row.id, kind: row.kind }, attempts: row.delivery_attempts, error },
            'support webhook delivery failed for good',
          );
        } else {
          counts.retried++;
          const at = new Date(now.getTime() + retryDelayMs(WEBHOOK_RETRY_SECONDS, row.delivery_attempts));
          if (nextRetry === null || at < nextRetry) nextRetry = at;
          await record({ status: 'pending', error, nextAt: at });
          logger.warn(
            { notification: { id: row.id }, attempt: row.delivery_attempts, error },
            'support webhook delivery failed; will retry',
          );
        }
      }),
    );
  }
  if (nextRetry) await wake(deps.queue, 'deliverNotifications', { at: nextRetry });
  return counts;
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
  return JSON.stringify({
    id: row.id,
    type: 'support.notification',
    createdAt: data.createdAt,
    kind: data.kind,
    reason: data.reason,
    message: data.message,
    facilityId: data.facilityId,
    auctionId: data.auctionId,
    detail: data.detail,
    count: data.count,
    attempt: row.delivery_attempts,
    data,
  });
}

/** One POST; null on a 2xx, else what went wrong. */
async function post(url: string, secret: string | null, row: NotificationRow): Promise<string | null> {
  const body = supportWebhookBody(row);
  const signature = secret ? signatureHeaders([secret], supportWebhookId(row), new Date(), body) : {};
  try {
    const { request } = await import('undici'); // loaded at the first delivery, not at start-up
    const response = await request(url, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Gatehouse-Support/1.0',
        'x-gatehouse-notification-id': row.id,
        ...signature,
      },
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
    // The answer is not used: read up to what a webhook answer may be (64 KiB, as the push face), then cut.
    drainUpTo(response.body, WEBHOOK_ANSWER_MAX_BYTES, response.headers['content-length']);
    return response.statusCode >= 200 && response.statusCode < 300 ? null : `HTTP ${response.statusCode}`;
  } catch (error) {
    const e = error as { code?: string; name?: string };
    return e.name === 'TimeoutError' || e.name === 'AbortError' ? 'TIMEOUT' : (e.code ?? e.name ?? 'ERROR');
  }
}

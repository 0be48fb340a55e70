// Delivery of the support notifications to SUPPORT_WEBHOOK_URL (the job auctions.deliver-notifications):
// the due rows are claimed with a lease, POSTed as JSON, and a failed POST is retried with back-off
// up to LIMITS.webhookAttempts times, then marked failed (and logged as an error).
import type { AuctionDeps } from './deps.ts';
import { LIMITS } from './model.ts';
import { claimDueDeliveries, recordDeliveryOutcome, type NotificationRow } from './notifications-repository.ts';
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
  let nextRetry: Date | null = null;
  for (;;) {
    const rows = await claimDueDeliveries(db, now);
    if (rows.length === 0) break;
    await Promise.all(
      rows.map(async (row) => {
        const error = await post(url, row);
        if (error === null) {
          counts.delivered++;
          await recordDeliveryOutcome(db, row.id, { status: 'delivered' });
        } else if (row.delivery_attempts >= LIMITS.webhookAttempts) {
          counts.failed++;
          await recordDeliveryOutcome(db, row.id, { status: 'failed', error });
          logger.error(
            { notification: { id: row.id, kind: row.kind }, attempts: row.delivery_attempts, error },
            'support webhook delivery failed for good',
          );
        } else {
          counts.retried++;
          const at = new Date(now.getTime() + retryDelayMs(WEBHOOK_RETRY_SECONDS, row.delivery_attempts));
          if (nextRetry === null || at < nextRetry) nextRetry = at;
          await recordDeliveryOutcome(db, row.id, { status: 'pending', error, nextAt: at });
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

/** One POST; null on a 2xx, else what went wrong. */
async function post(url: string, row: NotificationRow): Promise<string | null> {
  const payload = {
    id: row.id,
    type: 'support.notification',
    kind: row.kind,
    reason: row.reason,
    message: row.message,
    facilityId: row.facility_id,
    auctionId: row.auction_id,
    detail: row.detail,
    createdAt: row.created_at.toISOString(),
    attempt: row.delivery_attempts,
  };
  try {
    const { request } = await import('undici'); // loaded at the first delivery, not at start-up
    const response = await request(url, {
      method: 'POST',
      body: JSON.stringify(payload),
      headers: {
        'content-type': 'application/json',
        'user-agent': 'Gatehouse-Support/1.0',
        'x-gatehouse-notification-id': row.id,
      },
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
    await response.body.dump().catch(() => {});
    return response.statusCode >= 200 && response.statusCode < 300 ? null : `HTTP ${response.statusCode}`;
  } catch (error) {
    const e = error as { code?: string; name?: string };
    return e.name === 'TimeoutError' || e.name === 'AbortError' ? 'TIMEOUT' : (e.code ?? e.name ?? 'ERROR');
  }
}

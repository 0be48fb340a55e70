// Delivery of the support notifications to SUPPORT_WEBHOOK_URL (the job support.deliver-notifications):
// the due rows are claimed with a lease and POSTed through the one webhook sender (net/webhook-sender.ts,
// without the address check: the URL is the operator's), signed per Standard Webhooks with
// SUPPORT_WEBHOOK_SECRET (SPEC §6.4; unsigned when no secret is set); a failed POST is retried on
// WEBHOOK_RETRY (rules.ts) up to LIMITS.webhookAttempts times, then marked failed (and logged as an
// error). A group is sent when it opens, and again when it has grown, at most every
// LIMITS.notificationResendMinutes (repository.ts: upsertGroups).
import { retryDelayMs } from '../net/retry.ts';
import type { SupportDeps } from './deps.ts';
import { wakeDelivery } from './jobs.ts';
import { claimDueDeliveries, recordDeliveryOutcome, type NotificationRow } from './repository.ts';
import { deliveryError, LIMITS, supportWebhookBody, supportWebhookId, WEBHOOK_RETRY } from './rules.ts';

/** Delivers the notifications whose delivery is due at `now`, oldest first. */
export async function deliverDue(
  deps: Pick<SupportDeps, 'db' | 'config' | 'queue' | 'logger' | 'sender'>,
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
        const error = await post(deps, url, secret, row);
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
          const at = new Date(now.getTime() + retryDelayMs(WEBHOOK_RETRY, row.delivery_attempts));
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
  if (nextRetry) await wakeDelivery(deps.queue, { at: nextRetry });
  return counts;
}

/** One POST; null on a 2xx, else what went wrong (deliveryError's words). */
async function post(
  deps: Pick<SupportDeps, 'sender'>,
  url: string,
  secret: string | null,
  row: NotificationRow,
): Promise<string | null> {
  const attempt = await deps.sender.send(url, {
    id: supportWebhookId(row),
    body: supportWebhookBody(row),
    secrets: secret ? [secret] : [],
    headers: { 'x-gatehouse-notification-id': row.id },
  });
  return deliveryError(attempt);
}

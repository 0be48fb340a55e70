// The support room (issue 24): support notifications — raised by any face through `raise`, in that
// face's own transaction, each face wording its own message; grouped, kept, listed, resolved, logged
// and delivered to SUPPORT_WEBHOOK_URL through the one webhook sender of net/. Built once by the
// composition root (src/services.ts), which hands `raise` (and what else a face needs of it) to
// the faces that raise: auctions (AUCTION_PENDING, IMAGE_FETCH_FAILED, JOB_FAILED of its dead
// letters) and push (WEBHOOK_DISABLED). The console reads them through routes/ (/admin/notifications).
//
//   notifications.ts  raise, logRaised, settleAuctions, resolveNotification, listNotifications
//   deliver.ts        the webhook delivery (the job)
//   rules.ts          kinds, grouping, messages, views, the webhook body and retry schedule (pure)
//   repository.ts     the SQL; tables.ts its tables; jobs.ts its job; schemas.ts its named schemas
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { Db } from '../db/tables.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';
import { WebhookSender } from '../net/webhook-sender.ts';
import { deliverDue } from './deliver.ts';
import type { SupportDeps } from './deps.ts';
import { supportJobs } from './jobs.ts';
import { listNotifications, logRaised, raise, resolveNotification, settleAuctions } from './notifications.ts';
import { LIMITS, type NewNotification, type NotificationView } from './rules.ts';

export type { StillPending } from './notifications.ts';
export type { NewNotification, NotificationKind, NotificationView } from './rules.ts';

/** How a face raises support notifications in its own transaction (then logs them after the commit: `logRaised`). */
export type SupportRaise = (trx: Db, now: Date, notifications: NewNotification[]) => Promise<NotificationView[]>;

export interface SupportOptions {
  database: Database;
  config: Pick<Config, 'supportWebhookUrl' | 'supportWebhookSecret'>;
  logger: Logger;
  jobs: JobQueue;
}

export function createSupport({ database, config, logger, jobs }: SupportOptions) {
  if (config.supportWebhookUrl && !config.supportWebhookSecret) {
    // Sent unsigned rather than refused: a deployment that set the URL before signing existed keeps
    // its notifications; the warning says how to sign them.
    logger.warn(
      'SUPPORT_WEBHOOK_URL is set without SUPPORT_WEBHOOK_SECRET: support notifications are sent unsigned; ' +
        'set SUPPORT_WEBHOOK_SECRET (whsec_… base64) so that the receiver can verify them',
    );
  }
  const deps: SupportDeps = {
    db: database.db,
    config,
    queue: jobs,
    logger,
    // The operator's own URL (it may be on the operator's network): sent without the address check.
    sender: new WebhookSender({
      allowHosts: 'unchecked',
      timeoutMs: LIMITS.webhookTimeoutMs,
      userAgent: 'Gatehouse-Support/1.0',
    }),
  };
  const raiseIn: SupportRaise = (trx, now, notifications) => raise(deps, trx, now, notifications);
  const deliverDueNow = (now?: Date) => deliverDue(deps, now);
  return {
    /** Any face raises notifications through this, in its own transaction. */
    raise: raiseIn,
    /** After the raising transaction committed: one warning per group raised. */
    logRaised: (raised: NotificationView[]) => logRaised(deps, raised),
    /** Auctions that left Pending: their AUCTION_PENDING groups say how, and resolve with their last one. */
    settleAuctions,
    // Support's reads and changes (/admin/notifications, the console).
    list: (query: Parameters<typeof listNotifications>[1]) => listNotifications(deps, query),
    resolve: (id: string, actor: string, resolution: string) => resolveNotification(deps, id, actor, resolution),
    /** What the delivery job runs (also run by tests at a chosen time). */
    deliverDue: deliverDueNow,
    /** The room's background job, worked by the server's queue. */
    jobs: supportJobs({ deliverDue: () => deliverDueNow() }),
    async close() {
      await deps.sender.close();
    },
  };
}

export type Support = ReturnType<typeof createSupport>;

// What the support room's operations work with. createSupport (index.ts) builds it once; every
// operation takes the parts it needs (a Pick of this), so its dependencies are in its signature.
import type { Config } from '../config.ts';
import type { Db } from '../db/tables.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';
import type { WebhookSender } from '../net/webhook-sender.ts';

export interface SupportDeps {
  db: Db;
  config: Pick<Config, 'supportWebhookUrl' | 'supportWebhookSecret'>;
  /** Sends the room's wake-up jobs (in a transaction, with its runner: see jobs.ts). */
  queue: Pick<JobQueue, 'send'>;
  logger: Logger;
  /** The one webhook sender (net/webhook-sender.ts), for SUPPORT_WEBHOOK_URL: no address check. */
  sender: WebhookSender;
}

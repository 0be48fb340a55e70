// Background jobs of the push face. push.retry is a lane's retry made durable: sent for the time
// the lane's head may be tried again, it kicks the lane then — on whichever instance takes it, and
// after a restart. push.maintenance drops the delivery log's old entries.
import type { JobDefinition } from '../jobs/queue.ts';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import type { Logger } from '../logger.ts';
import { purgeDeliveries } from './repository.ts';
import { LIMITS } from './rules.ts';

/** A lane's retry, sent for the time its head may be tried again. */
export const RETRY_JOB = 'push.retry';
/** Hourly: drops the delivery log's old entries. */
export const MAINTENANCE_JOB = 'push.maintenance';

export function pushJobs({ db, logger, kick }: { db: Db; logger: Logger; kick(id: EntityId): void }): JobDefinition[] {
  return [
    {
      name: RETRY_JOB,
      queue: { retryLimit: 0, expireInSeconds: 60 },
      batchSize: 100,
      pollingIntervalSeconds: 1,
      async handle(jobs) {
        for (const job of jobs) kick((job.data as { subscriptionId: EntityId }).subscriptionId);
      },
    },
    {
      name: MAINTENANCE_JOB,
      schedule: '23 * * * *',
      queue: { retryLimit: 2, retryDelay: 300 },
      batchSize: 1,
      async handle() {
        const purged = await purgeDeliveries(db, new Date(Date.now() - LIMITS.deliveryRetentionDays * 86_400_000));
        if (purged > 0) logger.info({ purged }, 'old webhook deliveries deleted');
      },
    },
  ];
}

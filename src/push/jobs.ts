// Background jobs of the push face. push.retry is a lane's retry made durable: sent for the time
// the lane's head may be tried again, it kicks the lane then — on whichever instance takes it, and
// after a restart. push.maintenance drops the delivery log's old entries.
import type { JobDefinition } from '../jobs/queue.ts';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import type { Logger } from '../logger.ts';
import { purgeDeliveries } from './repository.ts';
import { LIMITS } from './rules.ts';

export const PUSH_JOBS = {
  retry: 'push.retry',
  maintenance: 'push.maintenance',
} as const;

export function pushJobs({ db, logger, kick }: { db: Db; logger: Logger; kick(id: EntityId): void }): JobDefinition[] {
  return [
    {
      name: PUSH_JOBS.retry,
      queue: { retryLimit: 0, expireInSeconds: 60 },
      batchSize: 100,
      pollingIntervalSeconds: 1,
      async handle(jobs) {
        for (const job of jobs) kick((job.data as { subscriptionId: EntityId }).subscriptionId);
      },
    },
    {
      name: PUSH_JOBS.maintenance,
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

// Background jobs of the events face: partition upkeep and retention, every hour.
import type { JobDefinition } from '../jobs/queue.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { Partitions } from './partitions.ts';

export const MAINTAIN_PARTITIONS_JOB = 'events.maintain-partitions';

export function eventJobs({
  partitions,
  config,
  logger,
}: {
  partitions: Partitions;
  config: Pick<Config, 'eventRetentionDays'>;
  logger: Logger;
}): JobDefinition<object>[] {
  return [
    {
      name: MAINTAIN_PARTITIONS_JOB,
      // Creates the coming months' partitions, drops those past EVENT_RETENTION_DAYS, forgets old event ids.
      schedule: '7 * * * *',
      batchSize: 1,
      queue: { retryLimit: 3, retryDelay: 60, retryBackoff: true },
      async handle() {
        const result = await partitions.maintain(Date.now(), config.eventRetentionDays);
        if (result.created.length > 0 || result.dropped.length > 0 || result.idsDeleted > 0) {
          logger.info({ ...result, retentionDays: config.eventRetentionDays }, 'gateway event partitions maintained');
        }
      },
    },
  ];
}

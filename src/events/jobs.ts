// Background jobs of the events face: partition upkeep and retention, every hour.
import type { JobDefinition } from '../jobs/queue.ts';
import type { Services } from '../services.ts';
import { maintainPartitions } from './partitions.ts';

export const EVENT_MAINTENANCE_JOB = 'gateway-events-maintenance';

export function eventJobs(services: Services): JobDefinition<object>[] {
  return [
    {
      name: EVENT_MAINTENANCE_JOB,
      // Creates the coming months' partitions, drops those past EVENT_RETENTION_DAYS, forgets old event ids.
      schedule: '7 * * * *',
      batchSize: 1,
      queue: { retryLimit: 3, retryDelay: 60, retryBackoff: true },
      async handle() {
        const result = await maintainPartitions(services.database.pool, Date.now(), services.config.eventRetentionDays);
        if (result.created.length > 0 || result.dropped.length > 0 || result.idsDeleted > 0) {
          services.logger.info({ ...result, retentionDays: services.config.eventRetentionDays }, 'gateway event partitions maintained');
        }
      },
    },
  ];
}

// Background jobs of the access-control face. Command status needs no job (expiry is computed
// from expires_at); this one only keeps the commands table from growing for ever.
import type { JobDefinition } from '../jobs/queue.ts';
import type { Services } from '../services.ts';
import { COMMAND_RETENTION_DAYS, purgeOldCommands } from './commands.ts';

export const PURGE_COMMANDS_JOB = 'access-control.purge-commands';

export function accessControlJobs(services: Services): JobDefinition<object>[] {
  return [
    {
      name: PURGE_COMMANDS_JOB,
      // Daily, off the hour marks that partners are told to use.
      schedule: '17 3 * * *',
      queue: { retryLimit: 3, retryDelay: 300 },
      batchSize: 1,
      async handle() {
        const deleted = await purgeOldCommands(services.database.db);
        if (deleted > 0) services.logger.info({ deleted, retentionDays: COMMAND_RETENTION_DAYS }, 'old commands deleted');
      },
    },
  ];
}

// Background jobs of the access-control face. A command's status is computed (expiry from
// expires_at); one job records expiries as facts for push delivery, one keeps the commands table
// from growing for ever.
import type { JobDefinition } from '../jobs/queue.ts';
import type { Db } from '../db/tables.ts';
import type { Logger } from '../logger.ts';
import { COMMAND_RETENTION_DAYS, purgeOldCommands } from './commands.ts';
import { recordExpiredCommands } from './command-repository.ts';

export const PURGE_COMMANDS_JOB = 'access-control.purge-commands';
export const RECORD_EXPIRED_COMMANDS_JOB = 'access-control.record-expired-commands';

export function accessControlJobs({ db, logger }: { db: Db; logger: Logger }): JobDefinition<object>[] {
  return [
    {
      name: RECORD_EXPIRED_COMMANDS_JOB,
      // Every minute: a command that expires does so without any request (push: command.status).
      schedule: '* * * * *',
      queue: { retryLimit: 0 },
      batchSize: 1,
      async handle() {
        const expired = await recordExpiredCommands(db);
        if (expired > 0) logger.info({ expired }, 'expired commands recorded');
      },
    },
    {
      name: PURGE_COMMANDS_JOB,
      // Daily, off the hour marks that partners are told to use.
      schedule: '17 3 * * *',
      queue: { retryLimit: 3, retryDelay: 300 },
      batchSize: 1,
      async handle() {
        const deleted = await purgeOldCommands(db);
        if (deleted > 0) logger.info({ deleted, retentionDays: COMMAND_RETENTION_DAYS }, 'old commands deleted');
      },
    },
  ];
}

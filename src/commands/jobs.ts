// Background jobs of the command queue. A command's status is computed (expiry from expires_at);
// one job records expiries as facts for push delivery, one keeps the commands table from growing
// for ever. Both were named access-control.… before the queue had a room of its own (issue 24):
// those names are unscheduled at start (`replaces`).
import type { JobDefinition } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';
import type { CommandsDeps } from './deps.ts';
import { purgeOldCommands, recordExpiredCommands } from './retention.ts';
import { COMMAND_RETENTION_DAYS } from './rules.ts';

export const RECORD_EXPIRED_COMMANDS_JOB = 'commands.record-expired-commands';
export const PURGE_COMMANDS_JOB = 'commands.purge-commands';

export function commandJobs(deps: Pick<CommandsDeps, 'db'>, logger: Logger): JobDefinition<object>[] {
  return [
    {
      name: RECORD_EXPIRED_COMMANDS_JOB,
      formerNames: ['access-control.record-expired-commands'],
      // Every minute: a command that expires does so without any request (push: command.status).
      schedule: '* * * * *',
      queue: { retryLimit: 0 },
      batchSize: 1,
      async handle() {
        const expired = await recordExpiredCommands(deps);
        if (expired > 0) logger.info({ expired }, 'expired commands recorded');
      },
    },
    {
      name: PURGE_COMMANDS_JOB,
      formerNames: ['access-control.purge-commands'],
      // Daily, off the hour marks that partners are told to use.
      schedule: '17 3 * * *',
      queue: { retryLimit: 3, retryDelay: 300 },
      batchSize: 1,
      async handle() {
        const deleted = await purgeOldCommands(deps);
        if (deleted > 0) logger.info({ deleted, retentionDays: COMMAND_RETENTION_DAYS }, 'old commands deleted');
      },
    },
  ];
}

// Background jobs of the facility-status face: one records the status changes that the passing of
// time makes (a controller that falls silent sends nothing), one deletes old remote actions.
import type { Clock } from '../clock.ts';
import type { Db } from '../db/tables.ts';
import type { JobDefinition } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';
import { COMMAND_RETENTION_DAYS } from '../commands/index.ts';
import { purgeOldRemoteActions } from './remote-actions.ts';
import { recordStatusChanges } from './status-changes.ts';

export const RECORD_STATUS_CHANGES_JOB = 'facility-status.record-status-changes';
export const PURGE_REMOTE_ACTIONS_JOB = 'facility-status.purge-remote-actions';

export function facilityStatusJobs({
  db,
  logger,
  clock,
}: {
  db: Db;
  logger: Logger;
  clock: Clock;
}): JobDefinition<object>[] {
  return [
    {
      name: RECORD_STATUS_CHANGES_JOB,
      // Its name while facility status lived in access control: unscheduled at start.
      formerNames: ['access-control.record-status-changes'],
      // Every minute: a controller falls silent without any event, so the time itself changes statuses.
      schedule: '* * * * *',
      queue: { retryLimit: 0 },
      batchSize: 1,
      async handle() {
        // At the face's clock, as the status reads decide (a test moves it through a maintenance window).
        const recorded = await recordStatusChanges(db, clock.now());
        if (recorded > 0) logger.debug({ recorded }, 'facility status changes recorded');
      },
    },
    {
      name: PURGE_REMOTE_ACTIONS_JOB,
      // Daily, off the hour marks, beside the commands' purge (most go with their command).
      schedule: '23 3 * * *',
      queue: { retryLimit: 3, retryDelay: 300 },
      batchSize: 1,
      async handle() {
        const deleted = await purgeOldRemoteActions({ db }, clock.now());
        if (deleted > 0) logger.info({ deleted, retentionDays: COMMAND_RETENTION_DAYS }, 'old remote actions deleted');
      },
    },
  ];
}

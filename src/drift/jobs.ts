// The drift face's background job: healed drifts are deleted after DRIFT_RETENTION_DAYS.
import type { JobDefinition } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';
import type { DriftDeps } from './deps.ts';
import { DRIFT_RETENTION_DAYS, purgeHealedDrifts } from './records.ts';

export const PURGE_DRIFTS_JOB = 'drift.purge-drifts';

export function driftJobs(deps: Pick<DriftDeps, 'db'>, logger: Logger): JobDefinition<object>[] {
  return [
    {
      name: PURGE_DRIFTS_JOB,
      // Daily, off the hour marks that partners are told to use.
      schedule: '23 3 * * *',
      queue: { retryLimit: 3, retryDelay: 300 },
      batchSize: 1,
      async handle() {
        const deleted = await purgeHealedDrifts(deps);
        if (deleted > 0) logger.info({ deleted, retentionDays: DRIFT_RETENTION_DAYS }, 'old drifts deleted');
      },
    },
  ];
}

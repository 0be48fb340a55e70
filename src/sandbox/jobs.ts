// The sandbox face's job: every day, the sandboxes unused for 30 days are deleted, with every row, and the
// ids of credentials deleted a week ago or more are forgotten.
import type { JobDefinition } from '../jobs/queue.ts';
import type { SandboxParts } from './deps.ts';
import { SANDBOX_KEEP_DAYS } from './rules.ts';
import { purgeDeletedCredentials } from './repository.ts';
import { deleteExpiredSandboxes } from './sandboxes.ts';

/** Longer than any token's life (TOKEN_TTL_SECONDS, an hour by default): a week. */
const DELETED_CREDENTIALS_KEPT_MS = 7 * 86_400_000;

export const DELETE_EXPIRED_SANDBOXES_JOB = 'sandbox.delete-expired-sandboxes';

export function sandboxJobs(parts: Pick<SandboxParts, 'db' | 'clock' | 'logger'>): JobDefinition<object>[] {
  return [
    {
      name: DELETE_EXPIRED_SANDBOXES_JOB,
      // Daily, off the hour marks and the other faces' daily purges.
      schedule: '41 4 * * *',
      queue: { retryLimit: 3, retryDelay: 300 },
      batchSize: 1,
      async handle() {
        const deleted = await deleteExpiredSandboxes(parts);
        if (deleted > 0) parts.logger.info({ deleted, keptDays: SANDBOX_KEEP_DAYS }, 'expired sandboxes deleted');
        // A deleted credential's id is kept while a token of it could be in force (tokens live an hour by default).
        await purgeDeletedCredentials(parts.db, new Date(parts.clock.now() - DELETED_CREDENTIALS_KEPT_MS));
      },
    },
  ];
}

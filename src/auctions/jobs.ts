// Background jobs of the auctions face (names in job-names.ts). The fetch and delivery jobs are
// wake-ups (wake-ups.ts): the work list is in the face's tables (auction_images,
// support_notifications), so a job that runs twice, or late, does no harm, and the maintenance
// job every minute catches any wake-up that was lost.
import type PgBoss from 'pg-boss';
import type { JobDefinition } from '../jobs/queue.ts';
import { closeEnded } from './closing.ts';
import { deliverDueNotifications } from './deliver-notifications.ts';
import type { AuctionDeps } from './deps.ts';
import { fetchDueImages } from './images.ts';
import { hasDueImage } from './images-repository.ts';
import { JOBS } from './job-names.ts';
import { LIMITS } from './model.ts';
import { hasDueDelivery } from './notifications-repository.ts';
import { logNotifications, raiseNotifications } from './notifications.ts';
import { purgeIdempotencyKeys } from './repository.ts';
import { wake } from './wake-ups.ts';

// Failed runs (the database unreachable, say) are retried by pg-boss; after that the job lands
// in the dead-letter queue, whose handler turns it into a support notification.
const RETRIED = {
  retryLimit: 4,
  retryDelay: 15,
  retryBackoff: true,
  deadLetter: JOBS.deadLetter,
  expireInSeconds: 15 * 60,
};

export function auctionJobs(deps: AuctionDeps): JobDefinition[] {
  const deadLetter: JobDefinition<object> = {
    // First: the queues below name it as their dead-letter queue.
    name: JOBS.deadLetter,
    queue: { retryLimit: 2, retryDelay: 30 },
    async handle(jobs: PgBoss.Job<object>[]) {
      const created = await deps.db.transaction().execute((trx) =>
        raiseNotifications(
          deps,
          trx,
          new Date(),
          jobs.map((job) => ({
            kind: 'JOB_FAILED' as const,
            reason: 'RETRIES_EXHAUSTED',
            message: `The background job ${job.name} (${job.id}) failed after every retry and needs manual attention.`,
            facilityId: null,
            auctionId: null,
            detail: { jobId: job.id, queue: job.name, data: job.data },
          })),
        ),
      );
      logNotifications(deps.logger, created);
    },
  };
  return [
    deadLetter,
    {
      name: JOBS.fetchImages,
      queue: RETRIED,
      batchSize: 50,
      async handle() {
        const result = await fetchDueImages(deps);
        const { images } = deps.metrics;
        images.inc({ result: 'stored' }, result.stored);
        images.inc({ result: 'retried' }, result.retried);
        images.inc({ result: 'failed' }, result.failed);
      },
    },
    {
      name: JOBS.deliverNotifications,
      queue: RETRIED,
      batchSize: 50,
      async handle() {
        await deliverDueNotifications(deps);
      },
    },
    {
      name: JOBS.closeEnded,
      queue: RETRIED,
      batchSize: 50,
      schedule: '* * * * *',
      async handle() {
        const closed = await closeEnded(deps);
        if (closed > 0) deps.logger.info({ closed }, 'auctions closed unsold at their end');
      },
    },
    {
      name: JOBS.maintenance,
      queue: RETRIED,
      schedule: '* * * * *',
      async handle() {
        const { db } = deps;
        await purgeIdempotencyKeys(db, new Date(Date.now() - LIMITS.idempotencyHours * 3600_000));
        const now = new Date();
        const [image, delivery] = await Promise.all([hasDueImage(db, now), hasDueDelivery(db, now)]);
        if (image) await wake(deps.queue, 'fetchImages');
        if (delivery) await wake(deps.queue, 'deliverNotifications');
      },
    },
  ];
}

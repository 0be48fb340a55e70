// Background jobs of the auctions face. The fetch and delivery jobs are wake-ups: the work list
// is in the face's tables (auction_images, support_notifications), so a job that runs twice, or
// late, does no harm, and the maintenance job every minute catches any wake-up that was lost.
import type PgBoss from 'pg-boss';
import type { Counter } from 'prom-client';
import type { Db } from '../db/tables.ts';
import type { JobDefinition, JobQueue } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';
import type { ImagePipeline } from './images.ts';
import type { SupportNotifier } from './notifications.ts';
import type { AuctionService } from './service.ts';
import { JOBS } from './job-names.ts';
import { LIMITS } from './model.ts';
import { purgeIdempotencyKeys } from './repository.ts';

// Failed runs (the database unreachable, say) are retried by pg-boss; after that the job lands
// in the dead-letter queue, whose handler turns it into a support notification.
const RETRIED = { retryLimit: 4, retryDelay: 15, retryBackoff: true, deadLetter: JOBS.deadLetter, expireInSeconds: 15 * 60 };

/** What the jobs work with: the face's parts and the queue that wakes them. */
export interface AuctionJobParts {
  db: Db;
  service: AuctionService;
  images: ImagePipeline;
  notifier: SupportNotifier;
  metrics: { images: Counter<'result'> };
  logger: Logger;
  queue: JobQueue;
}

export function auctionJobs(face: AuctionJobParts): JobDefinition<any>[] {
  const deadLetter: JobDefinition<object> = {
    // First: the queues below name it as their dead-letter queue.
    name: JOBS.deadLetter,
    queue: { retryLimit: 2, retryDelay: 30 },
    async handle(jobs: PgBoss.Job<object>[]) {
      const { notifier } = face;
      const created = await face.db.transaction().execute((trx) =>
        notifier.create(
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
      notifier.logCreated(created);
    },
  };
  return [
    deadLetter,
    {
      name: JOBS.fetchImages,
      queue: RETRIED,
      batchSize: 50,
      async handle() {
        const result = await face.images.runDue();
        const { images } = face.metrics;
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
        await face.notifier.deliverDue();
      },
    },
    {
      name: JOBS.closeEnded,
      queue: RETRIED,
      batchSize: 50,
      schedule: '* * * * *',
      async handle() {
        const closed = await face.service.closeEnded();
        if (closed > 0) face.logger.info({ closed }, 'auctions closed unsold at their end');
      },
    },
    {
      name: JOBS.maintenance,
      queue: RETRIED,
      schedule: '* * * * *',
      async handle() {
        const { db } = face;
        await purgeIdempotencyKeys(db, new Date(Date.now() - LIMITS.idempotencyHours * 3600_000));
        const now = new Date();
        const [image, notification] = await Promise.all([
          db.selectFrom('auction_images').select('auction_id').where('status', '=', 'pending').where('next_attempt_at', '<=', now).limit(1).executeTakeFirst(),
          db.selectFrom('support_notifications').select('id').where('delivery_status', '=', 'pending').where('delivery_next_at', '<=', now).limit(1).executeTakeFirst(),
        ]);
        if (image) await face.queue.send(JOBS.fetchImages, {});
        if (notification) await face.queue.send(JOBS.deliverNotifications, {});
      },
    },
  ];
}

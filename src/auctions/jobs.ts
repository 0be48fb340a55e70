// Background jobs of the auctions face: their names, how the operations wake them, and their
// definitions (the work each runs is handed in by index.ts, so that the operations that wake a job
// and the job that runs them do not import each other). The fetch and closing jobs are also
// wake-ups: the work list is in the face's tables (auction_images, the auctions' ends), so a job that
// runs twice, or late, does no harm, and the maintenance job every minute catches any wake-up that
// was lost. Support notifications are the support room's, with its own job (src/support/jobs.ts).
import type PgBoss from 'pg-boss';
import type { Db } from '../db/tables.ts';
import { sqlRunner, type JobDefinition } from '../jobs/queue.ts';
import type { AuctionDeps } from './deps.ts';
import { hasDueImage } from './images-repository.ts';
import { LIMITS } from './model.ts';
import { purgeIdempotencyKeys } from './repository.ts';

/** Wake-up: fetch the images whose retrieval is due. Enqueued in the transaction that created them. */
export const FETCH_IMAGES_JOB = 'auctions.fetch-images';
/** Close the auctions whose endsAt passed (every minute, and at the earliest endsAt of a create). */
export const CLOSE_ENDED_JOB = 'auctions.close-ended';
/** Every minute: the safety net for lost wake-ups, and the purge of old idempotency keys. */
export const MAINTENANCE_JOB = 'auctions.maintenance';
/** Jobs of the face that exhausted their retries land here and become support notifications (JOB_FAILED). */
export const DEAD_LETTER_JOB = 'auctions.dead-letter';

/** Sends a wake-up: in the transaction `trx` when given, to run at `at` when given. */
export async function wake(
  queue: AuctionDeps['queue'],
  job: typeof FETCH_IMAGES_JOB | typeof CLOSE_ENDED_JOB,
  when: { trx?: Db; at?: Date } = {},
): Promise<void> {
  const runner = when.trx ? sqlRunner(when.trx) : undefined;
  await queue.send(job, {}, when.at ? { startAfter: when.at } : {}, runner);
}

/** After auctions were created or activated: their images to fetch, and the earliest end to close. */
export async function wakeForAuctions(
  queue: AuctionDeps['queue'],
  trx: Db,
  hasImages: boolean,
  auctions: { status: string; endsAt: Date | null }[],
): Promise<void> {
  if (hasImages) await wake(queue, FETCH_IMAGES_JOB, { trx });
  let earliest: Date | null = null;
  for (const a of auctions) {
    if (a.status === 'Active' && a.endsAt && (earliest === null || a.endsAt < earliest)) earliest = a.endsAt;
  }
  if (earliest) await wake(queue, CLOSE_ENDED_JOB, { trx, at: earliest });
}

// Failed runs (the database unreachable, say) are retried by pg-boss; after that the job lands
// in the dead-letter queue, whose handler turns it into a support notification.
const RETRIED = {
  retryLimit: 4,
  retryDelay: 15,
  retryBackoff: true,
  deadLetter: DEAD_LETTER_JOB,
  expireInSeconds: 15 * 60,
};

/** What the jobs run: the face's operations, bound by index.ts. */
export interface AuctionWork {
  fetchDueImages(): Promise<{ stored: number; retried: number; failed: number }>;
  closeEnded(): Promise<number>;
}

export function auctionJobs(deps: AuctionDeps, work: AuctionWork): JobDefinition[] {
  const deadLetter: JobDefinition<object> = {
    // First: the queues below name it as their dead-letter queue.
    name: DEAD_LETTER_JOB,
    queue: { retryLimit: 2, retryDelay: 30 },
    async handle(jobs: PgBoss.Job<object>[]) {
      const created = await deps.db.transaction().execute((trx) =>
        deps.support.raise(
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
      deps.support.logRaised(created);
    },
  };
  return [
    deadLetter,
    {
      name: FETCH_IMAGES_JOB,
      queue: RETRIED,
      batchSize: 50,
      async handle() {
        const result = await work.fetchDueImages();
        const { images } = deps.metrics;
        images.inc({ result: 'stored' }, result.stored);
        images.inc({ result: 'retried' }, result.retried);
        images.inc({ result: 'failed' }, result.failed);
      },
    },
    {
      name: CLOSE_ENDED_JOB,
      queue: RETRIED,
      batchSize: 50,
      schedule: '* * * * *',
      async handle() {
        const closed = await work.closeEnded();
        if (closed > 0) deps.logger.info({ closed }, 'auctions closed unsold at their end');
      },
    },
    {
      name: MAINTENANCE_JOB,
      queue: RETRIED,
      schedule: '* * * * *',
      async handle() {
        const { db } = deps;
        await purgeIdempotencyKeys(db, new Date(Date.now() - LIMITS.idempotencyHours * 3600_000));
        if (await hasDueImage(db, new Date())) await wake(deps.queue, FETCH_IMAGES_JOB);
      },
    },
  ];
}

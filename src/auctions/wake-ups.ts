// How the operations wake the face's jobs (jobs.ts). A wake-up sent with a transaction exists
// only if that transaction commits. The work itself is in the tables (auction_images,
// support_notifications, the auctions' ends), so a wake-up that is doubled or late does no harm,
// and the maintenance job every minute sends the ones that were lost.
import type { Db } from '../db/tables.ts';
import type { AuctionDeps } from './deps.ts';
import { JOBS } from './job-names.ts';
import { sqlRunner } from './repository.ts';

export type WakeUp = 'fetchImages' | 'deliverNotifications' | 'closeEnded';

/** Sends the wake-up: in the transaction `trx` when given, to run at `at` when given. */
export async function wake(
  queue: AuctionDeps['queue'],
  job: WakeUp,
  when: { trx?: Db; at?: Date } = {},
): Promise<void> {
  const runner = when.trx ? sqlRunner(when.trx) : undefined;
  await queue.send(JOBS[job], {}, when.at ? { startAfter: when.at } : {}, runner);
}

/** After auctions were created or activated: their images to fetch, and the earliest end to close. */
export async function wakeForAuctions(
  queue: AuctionDeps['queue'],
  trx: Db,
  hasImages: boolean,
  auctions: { status: string; endsAt: Date | null }[],
): Promise<void> {
  if (hasImages) await wake(queue, 'fetchImages', { trx });
  let earliest: Date | null = null;
  for (const a of auctions) {
    if (a.status === 'Active' && a.endsAt && (earliest === null || a.endsAt < earliest)) earliest = a.endsAt;
  }
  if (earliest) await wake(queue, 'closeEnded', { trx, at: earliest });
}

// Background jobs of the support room, by name, and how its operations wake them. The delivery job
// is a wake-up: the work list is the support_notifications table, so a job that runs twice, or
// late, does no harm; it also runs every minute, which catches a wake-up that was lost.
import type { Db } from '../db/tables.ts';
import { sqlRunner, type JobDefinition } from '../jobs/queue.ts';
import type { SupportDeps } from './deps.ts';

/** Wake-up (and every minute): POST the support notifications whose delivery is due. */
export const DELIVER_NOTIFICATIONS_JOB = 'support.deliver-notifications';

/** Sends the delivery's wake-up: in the transaction `trx` when given, to run at `at` when given. */
export async function wakeDelivery(queue: SupportDeps['queue'], when: { trx?: Db; at?: Date } = {}): Promise<void> {
  const runner = when.trx ? sqlRunner(when.trx) : undefined;
  await queue.send(DELIVER_NOTIFICATIONS_JOB, {}, when.at ? { startAfter: when.at } : {}, runner);
}

export function supportJobs(work: { deliverDue(): Promise<unknown> }): JobDefinition[] {
  return [
    {
      name: DELIVER_NOTIFICATIONS_JOB,
      // Before issue 24 the auctions face owned this job: wake-ups sent under that name before an
      // upgrade are worked too, and its schedule, had it one, is removed (jobs/queue.ts).
      formerNames: ['auctions.deliver-notifications'],
      // A failed run (the database unreachable, say) is retried; the next minute's run takes over after that.
      queue: { retryLimit: 4, retryDelay: 15, retryBackoff: true, expireInSeconds: 15 * 60 },
      batchSize: 50,
      schedule: '* * * * *',
      async handle() {
        await work.deliverDue();
      },
    },
  ];
}

// The claim of sandbox controllers: a scheduled job, every minute (pg-boss's cron runs by the minute),
// and sent at once whenever controllers become claimable while the service runs — a sandbox's creation
// (with its transaction), an instance releasing its controllers at shutdown. Each run claims, for the
// instance that works it, up to a bounded number of controllers no one runs; that instance runs them.
// An instance that dies without releasing leaves its controllers unrun until their lease runs out (30 s)
// and the next claim comes: at most about a minute and a half.
import type { JobDefinition } from '../../jobs/queue.ts';

export const CLAIM_CONTROLLERS_JOB = 'sandbox.claim-controllers';

export function controllerJobs(claim: () => Promise<number>): JobDefinition<object>[] {
  return [
    {
      name: CLAIM_CONTROLLERS_JOB,
      schedule: '* * * * *',
      // A stopping instance refuses the claim: it is tried again a second later, by another instance.
      queue: { retryLimit: 5, retryDelay: 1, expireInSeconds: 60 },
      batchSize: 1,
      async handle() {
        await claim();
      },
    },
  ];
}

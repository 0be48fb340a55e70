// The job queue's renamed jobs: a face's job that moved to another room (access-control.* →
// facility-status.*, commands.*) takes its new name and names its former ones; at start a former
// name is unscheduled (no schedule goes on queueing jobs nothing works) and the jobs still waiting
// under it are worked by the job's handler (none is lost). test/support/former-job-name.test.ts
// shows the same for a job whose work must not be lost (a support notification's delivery).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { JobQueue, type JobDefinition } from '../../src/jobs/queue.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';

let t: TestApp;

before(async () => {
  t = await startTestApp();
});
after(() => t?.close());

const schedules = async () =>
  (await t.services.database.pool.query<{ name: string }>('select name from pgboss.schedule order by name')).rows.map(
    (r) => r.name,
  );
const jobState = async (id: string) =>
  (await t.services.database.pool.query<{ state: string }>('select state from pgboss.job where id = $1', [id])).rows[0]
    ?.state;

/** Starts a supervising queue with the definitions, as a server does, and stops it (even when its start fails). */
async function runQueue(definitions: JobDefinition[]) {
  const queue = new JobQueue(t.services.database.pool, t.services.logger, { supervise: true });
  try {
    await queue.start(definitions);
  } finally {
    await queue.stop();
  }
}

describe('renamed jobs', () => {
  it('a renamed job unschedules its former name, works the jobs waiting under it, and is scheduled under its new name', async () => {
    const renamed = [...t.services.facilityStatus.jobs, ...t.services.commands.jobs].filter((job) => job.formerNames);
    assert.deepEqual(
      renamed.flatMap((job) => job.formerNames),
      [
        'access-control.record-status-changes',
        'access-control.record-expired-commands',
        'access-control.purge-commands',
      ],
    );
    // A database an earlier version served: its jobs scheduled under their old names, one of each
    // waiting (the schedule had queued it when that version stopped). (Whether pg-boss's own cron
    // queues more meanwhile depends on the minute: only these jobs are looked at.)
    const former = (job: JobDefinition) => job.formerNames![0]!;
    await runQueue(
      renamed.map((job) => ({ name: former(job), schedule: job.schedule, batchSize: 1, handle: async () => {} })),
    );
    const waitingIds = new Map<string, string>();
    for (const job of renamed) {
      assert.ok((await schedules()).includes(former(job)), `${former(job)} scheduled`);
      const id = await t.services.jobs.send(former(job), {});
      assert.ok(id !== null && (await jobState(id)) === 'created');
      waitingIds.set(former(job), id);
    }

    // The new build starts: each waiting job is worked under its former name by the new handler.
    const queue = new JobQueue(t.services.database.pool, t.services.logger, { supervise: true });
    try {
      await queue.start(renamed);
      for (const job of renamed) {
        const id = waitingIds.get(former(job))!;
        const deadline = Date.now() + 30_000;
        while ((await jobState(id)) !== 'completed') {
          if (Date.now() > deadline) throw new Error(`the job waiting under ${former(job)} was not worked`);
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    } finally {
      await queue.stop();
    }
    const scheduled = await schedules();
    for (const job of renamed) {
      assert.ok(!scheduled.includes(former(job)), `${former(job)} is no longer scheduled`);
      assert.ok(scheduled.includes(job.name), `${job.name} is scheduled`);
    }
    // A second start finds nothing to remove.
    await runQueue(renamed);
    assert.deepEqual(await schedules(), scheduled);
  });
});

// The job queue's renamed jobs: a face's job that moved to another face (access-control.* →
// facility-status.*, commands.*) takes its new name, and at start the old name is unscheduled and
// the jobs waiting under it dropped, so that no schedule goes on queueing jobs nothing works.
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
const jobExists = async (id: string) =>
  (await t.services.database.pool.query('select 1 from pgboss.job where id = $1', [id])).rows.length === 1;

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
  it('a renamed job unschedules its old name and drops the jobs waiting under it, and is scheduled under its new name', async () => {
    const renamed = [...t.services.facilityStatus.jobs, ...t.services.commands.jobs].filter((job) => job.replaces);
    assert.deepEqual(
      renamed.map((job) => job.replaces),
      [
        'access-control.record-status-changes',
        'access-control.record-expired-commands',
        'access-control.purge-commands',
      ],
    );
    // A database an earlier version served: its jobs scheduled under their old names, one of each
    // waiting (the schedule had queued it when that version stopped). (Whether pg-boss's own cron
    // queues more meanwhile depends on the minute: only these jobs are looked at.)
    await runQueue(
      renamed.map((job) => ({ name: job.replaces!, schedule: job.schedule, batchSize: 1, handle: async () => {} })),
    );
    const waitingIds = new Map<string, string>();
    for (const job of renamed) {
      assert.ok((await schedules()).includes(job.replaces!), `${job.replaces} scheduled`);
      const id = await t.services.jobs.send(job.replaces!, {});
      assert.ok(id !== null && (await jobExists(id)));
      waitingIds.set(job.replaces!, id);
    }

    await runQueue(renamed);
    const scheduled = await schedules();
    for (const job of renamed) {
      assert.ok(!scheduled.includes(job.replaces!), `${job.replaces} is no longer scheduled`);
      assert.ok(!(await jobExists(waitingIds.get(job.replaces!)!)), `the job waiting under ${job.replaces} is dropped`);
      assert.ok(scheduled.includes(job.name), `${job.name} is scheduled`);
    }
    // A second start finds nothing to remove.
    await runQueue(renamed);
    assert.deepEqual(await schedules(), scheduled);
  });
});

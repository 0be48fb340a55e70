// The job queue's renamed jobs: a face's job that moved to another face (access-control.* →
// facility-status.*) takes its new name, and the old name's queue — with its schedule, which pg-boss
// keeps under the name — is deleted at start, so that no schedule goes on queueing jobs nothing works.
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
const queues = async () =>
  (await t.services.database.pool.query<{ name: string }>('select name from pgboss.queue order by name')).rows.map(
    (r) => r.name,
  );

/** Starts a supervising queue with the definitions, as a server does, and stops it. */
async function runQueue(definitions: JobDefinition[]) {
  const queue = new JobQueue(t.services.database.pool, t.services.logger, { supervise: true });
  await queue.start(definitions);
  await queue.stop();
}

describe('renamed jobs', () => {
  it('a renamed job deletes its old queue and schedule at start, and is scheduled under its new name', async () => {
    const renamed = [...t.services.facilityStatus.jobs].filter((job) => job.replaces);
    assert.ok(renamed.length > 0, 'the faces have renamed jobs');
    // A database an earlier version served: its jobs scheduled under their old names.
    await runQueue(
      renamed.map((job) => ({ name: job.replaces!, schedule: job.schedule, batchSize: 1, handle: async () => {} })),
    );
    for (const job of renamed) assert.ok((await schedules()).includes(job.replaces!), `${job.replaces} scheduled`);

    await runQueue(renamed);
    const [scheduled, existing] = [await schedules(), await queues()];
    for (const job of renamed) {
      assert.ok(!scheduled.includes(job.replaces!), `${job.replaces} is no longer scheduled`);
      assert.ok(!existing.includes(job.replaces!), `${job.replaces}'s queue is gone`);
      assert.ok(scheduled.includes(job.name), `${job.name} is scheduled`);
    }
    // A second start finds nothing to delete.
    await runQueue(renamed);
    assert.deepEqual(await schedules(), scheduled);
  });
});

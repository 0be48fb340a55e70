// The job queue: its stop (nothing pg-boss started outlives it), and its renamed jobs: a face's
// job that moved to another room (access-control.* →
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

describe('stopping', () => {
  it('a job fetched as the queue stops is handled and completed before stop returns: nothing reaches the pool after', async () => {
    // pg-boss reports itself stopped while a worker's fetch is still in flight, and completes a job
    // without awaiting the statement: the pool closed after stop() then received the job's
    // completion (an unhandled "Cannot use a pool after calling end on the pool").
    const name = 'test.stop-during-fetch';
    const real = t.services.database.pool;
    let released!: () => void;
    const release = new Promise<void>((resolve) => (released = resolve));
    let fetchHeld!: () => void;
    const held = new Promise<void>((resolve) => (fetchHeld = resolve));
    let stopped = false;
    const late: string[] = [];
    const pool = {
      query(text: string, values?: unknown[]) {
        if (stopped) late.push(text.trim().slice(0, 40));
        if (values?.[0] === name && /SKIP LOCKED/.test(text)) {
          fetchHeld();
          return release.then(() => real.query(text, values));
        }
        return real.query(text, values);
      },
    } as unknown as typeof real;
    const handled: string[] = [];
    const queue = new JobQueue(pool, t.services.logger, { supervise: true });
    await queue.start([
      { name, batchSize: 1, handle: async (jobs) => void handled.push(...jobs.map((job) => job.id)) },
    ]);
    await held;
    const id = await t.services.jobs.send(name, {});
    const stopping = queue.stop(10_000);
    setTimeout(released, 300);
    await stopping;
    stopped = true;
    assert.deepEqual(handled, [id], 'the job the in-flight fetch took was handled');
    assert.equal(await jobState(id!), 'completed');
    assert.deepEqual(late, [], 'no statement after stop returned');
  });
});

describe('starting together', () => {
  it('several instances starting at once on a database without their queues each start, and every queue exists once', async () => {
    // pg-boss makes a queue's partition with DDL on its shared job table; two instances making
    // theirs at the same moment took those locks in different orders ("deadlock detected").
    const names = Array.from({ length: 6 }, (_, i) => `test.together-${i}`);
    const definitions = names.map((name) => ({ name, schedule: '0 3 * * *', handle: async () => {} }));
    const queues = Array.from(
      { length: 4 },
      () => new JobQueue(t.services.database.pool, t.services.logger, { supervise: true }),
    );
    try {
      // Each instance creates them in its own order, as instances of different versions would.
      const started = await Promise.allSettled(
        queues.map((queue, i) => queue.start(i % 2 ? definitions : [...definitions].reverse())),
      );
      assert.deepEqual(
        started.map((result) => (result.status === 'rejected' ? String(result.reason) : 'started')),
        queues.map(() => 'started'),
      );
    } finally {
      await Promise.all(queues.map((queue) => queue.stop()));
    }
    const { rows } = await t.services.database.pool.query<{ name: string }>(
      "select name from pgboss.queue where name like 'test.together-%' order by name",
    );
    assert.deepEqual(
      rows.map((row) => row.name),
      names,
    );
  });
});

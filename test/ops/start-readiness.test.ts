// Ready when it listens (issue 29): once the server process accepts connections, /availability
// answers 200 from its first answer on — the job queue setting up its workers just after the start
// is reported (`jobs: "starting"`), never a reason for 503. Polled every few milliseconds from the
// spawn, against the real process on a migrated database (as an existing data directory is).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/harness.ts';
import { BIN, freePort } from '../helpers/process.ts';

const databases: TestDatabase[] = [];
after(async () => {
  for (const d of databases) await d.drop();
});

it('answers /availability 200 from its first answer, the job queue starting or running', async () => {
  const database = await createTestDatabase();
  databases.push(database);
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, ...database.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const answers: { status: number; jobs: unknown }[] = [];
  try {
    const deadline = Date.now() + 60_000;
    // Until the queue runs: every answer from the first, as a load balancer's check would see them.
    while (Date.now() < deadline) {
      const answer = await fetch(`http://127.0.0.1:${port}/availability`).then(
        async (r) => ({ status: r.status, jobs: ((await r.json()) as { checks: { jobs: unknown } }).checks.jobs }),
        () => null,
      );
      if (answer) {
        answers.push(answer);
        if (answer.jobs === true) break;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.ok(answers.length > 0, 'the server never answered');
    assert.deepEqual(
      answers.filter((a) => a.status !== 200),
      [],
      `every answer 200 (${answers.length} answers)`,
    );
    assert.deepEqual(
      [...new Set(answers.map((a) => a.jobs))].filter((j) => j !== 'starting' && j !== true),
      [],
    );
    assert.equal(answers.at(-1)!.jobs, true, 'the queue runs in the end');
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
});

// The command poll in the real server process: SIGTERM ends waiting polls at once, so the
// shutdown is not held for their 30-second waits.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/harness.ts';
import { runCli, startServerProcess } from '../helpers/process.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.drop());

it('SIGTERM answers polls waiting 30 s with {"commands": []} and stops cleanly well within the shutdown limit', async () => {
  // A shutdown held by a 30 s wait would overrun SHUTDOWN_TIMEOUT_SECONDS=10 and exit 1.
  const server = await startServerProcess({ ...database.env, SHUTDOWN_TIMEOUT_SECONDS: '10' });
  try {
    const run = (args: string[]) => runCli(args, database.env).then((r) => JSON.parse(r.stdout));
    const account = await run(['admin', 'account', 'create', '--name', 'Poll Co']);
    const facility = await run([
      'admin',
      'facility',
      'create',
      '--account',
      account.id,
      '--name',
      'Poll Site',
      '--time-zone',
      'UTC',
    ]);
    const gateway = await run(['admin', 'gateway', 'create', '--facility', facility.id]);
    const token = await fetch(`${server.url}/auth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: gateway.clientId,
        client_secret: gateway.clientSecret,
      }),
    }).then((r) => r.json() as Promise<{ access_token: string }>);
    const polls = [1, 2, 3].map(() =>
      fetch(`${server.url}/gateway/v1/commands?after=0&wait=30`, {
        headers: { authorization: `Bearer ${token.access_token}` },
      }).then(async (r) => ({ status: r.status, body: await r.json() })),
    );
    await new Promise((r) => setTimeout(r, 500));
    const exited = server.kill('SIGTERM');
    for (const answer of await Promise.all(polls)) assert.deepEqual(answer, { status: 200, body: { commands: [] } });
    assert.equal(await exited, 0, server.output());
    assert.match(server.output(), /"msg":"stopped"/);
  } finally {
    await server.kill('SIGKILL');
  }
});

// The command poll in the real server process: SIGTERM ends waiting polls at once, so the
// shutdown is not held for their 30-second waits.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/harness.ts';
import { eventually } from '../helpers/e2e.ts';
import { tokenFrom } from '../helpers/http.ts';
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
    const operator = await run(['admin', 'app', 'create', '--name', 'Monitoring', '--operator']);
    const token = (client: { clientId: string; clientSecret: string }) =>
      tokenFrom(server.url, {
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
      });
    const gatewayToken = await token(gateway);
    const polls = [1, 2, 3].map(() =>
      fetch(`${server.url}/gateway/v1/commands?after=0&wait=30`, {
        headers: { authorization: `Bearer ${gatewayToken}` },
      }).then(async (r) => ({ status: r.status, body: await r.json() })),
    );
    // The three polls are held (the instance's gauge says so) before the signal.
    const monitoring = { authorization: `Bearer ${await token(operator)}` };
    await eventually(
      'the three polls held',
      async () => {
        const metrics = await fetch(`${server.url}/metrics`, { headers: monitoring }).then((r) => r.text());
        return /^gatehouse_gateway_command_polls_waiting 3$/m.test(metrics);
      },
      20_000,
    );
    const exited = server.kill('SIGTERM');
    for (const answer of await Promise.all(polls)) assert.deepEqual(answer, { status: 200, body: { commands: [] } });
    assert.equal(await exited, 0, server.output());
    assert.match(server.output(), /"msg":"stopped"/);
  } finally {
    await server.kill('SIGKILL');
  }
});

// Issue 13 end to end, against the real server process and the real simulator process: a PMS
// opens the gate remotely and locks the facility down; the simulated controller applies both,
// acknowledges them and reports what it did (29, 37, 32), and the facility's reported state and
// status list follow.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import * as e2e from '../helpers/e2e.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/harness.ts';
import { startServerProcess, type ServerProcess } from '../helpers/process.ts';

let database: TestDatabase;
let server: ServerProcess;
before(async () => {
  database = await createTestDatabase();
  server = await startServerProcess({ ...database.env, RATE_LIMIT_PER_MINUTE: '100000' });
});
after(async () => {
  await server?.kill('SIGKILL');
  await database.drop();
});

it('remote open and lockdown from the PMS reach the simulated controller, and the reported state follows', async () => {
  const { facility, gateway, pms } = await e2e.provisionThroughAdmin(server.url, database, 'Remote');
  const http = (method: string, path: string) => e2e.http(server.url, method, path, pms);
  const base = `/facilities/${facility.id}`;
  const statusRow = async () =>
    ((await http('GET', '/facilities/statuslist')).body as any[]).find((r) => r.facilityId === facility.id);

  // Before any controller: never connected.
  assert.equal((await statusRow()).gatewayStatus, 'error');

  const simulator = e2e.startSimulator(server.url, database.env, gateway, [
    '--rate',
    '0',
    '--door-alarms',
    '0',
    '--device-drops',
    '0',
    '--flush-ms',
    '100',
  ]);
  let stopped: Awaited<ReturnType<typeof simulator.stop>>;
  try {
    await e2e.eventually('the gateway to be heard', async () => (await statusRow()).gatewayStatus === 'ok');

    // A remote open of the Main Gate: a command, acknowledged, reported as 29 and a relay state 37.
    const [gate] = (await http('GET', `${base}/actiongroups/manual`)).body;
    assert.equal(gate.name, 'Main Gate');
    const opened = await http('POST', `${base}/actiongroups/${gate.id}/open`);
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    await e2e.eventually('the open command to be acknowledged', async () => {
      const commands = (await http('GET', `${base}/commands?limit=1000`)).body as any[];
      return commands.find((c) => c.id === opened.body.command.id && c.status === 'acknowledged');
    });
    const log = await e2e.eventually('the Action Group Log Message', async () => {
      const page = (await http('GET', `/gatewayevents/facilities/${facility.id}?eventTypes=29&pageSize=10`)).body;
      return page.items.find((e: any) => e.data?.commandId === opened.body.command.id);
    });
    assert.equal(log.details, 'Main Gate: open by remote command');
    const relay = (await http('GET', `/gatewayevents/facilities/${facility.id}?eventTypes=37&pageSize=10`)).body.items;
    assert.equal(relay[0]?.data?.state, 'open');
    const devices = (await http('GET', `${base}/devices`)).body as any[];
    assert.ok(devices.some((d) => d.id === 'gate-operator' && d.lastEventType === 37));

    // A lockdown: desired at once, reported once the controller says so; the alarm column warns.
    const locked = await http('POST', `${base}/lockdown/enable`);
    assert.deepEqual([locked.status, locked.body.desired, locked.body.reported], [200, true, null]);
    await e2e.eventually(
      'the lockdown to be reported',
      async () => (await http('GET', `${base}/lockdown`)).body === true,
    );
    const status = (await http('GET', `${base}/status`)).body;
    assert.deepEqual(status.lockdown, { reported: true, desired: true });
    assert.equal(status.gatewayControllerPlatformOverallStatus, 'warning');
    const row = await statusRow();
    assert.deepEqual([row.alarmStatus, row.alarmStatusMessage], ['warning', 'The facility is locked down.']);

    // And lifted.
    await http('POST', `${base}/lockdown/disable`);
    await e2e.eventually(
      'the lockdown to be lifted',
      async () => (await http('GET', `${base}/lockdown`)).body === false,
    );
    assert.equal((await statusRow()).alarmStatus, 'ok');
    assert.equal((await statusRow()).pmsInterfaceStatus, 'ok');
  } finally {
    stopped = await simulator.stop();
  }
  assert.equal(stopped.code, 0, stopped.stderr);
  const summary = JSON.parse(stopped.stdout);
  assert.equal(summary.rejected, 0, JSON.stringify(summary));
});

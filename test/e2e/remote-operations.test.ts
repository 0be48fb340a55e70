// Issue 13 end to end, against the real server process and the real simulator process: a PMS
// opens the gate remotely and locks the facility down; the simulated controller applies both,
// acknowledges them and reports what it did (29, 37, 32), and the facility's reported state and
// status list follow.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import * as e2e from '../helpers/e2e.ts';
import { realServer } from '../helpers/server.ts';

const served = realServer({ RATE_LIMIT_PER_MINUTE: '100000' }, { signal: 'SIGKILL' });

it('remote open and lockdown from the PMS reach the simulated controller, and the reported state follows', async () => {
  const { facility, gateway, pms } = await e2e.provisionThroughAdmin(served.url, served.database, 'Remote');
  const client = e2e.clientFor(served.url, pms);
  const facilityId = facility.id;
  const path = { path: { facilityId } };
  const statusRow = async () =>
    (await e2e.ok(client.GET('/facilities/statuslist'))).find((r) => r.facilityId === facilityId)!;
  const events = async (eventType: number) =>
    (
      await e2e.ok(
        client.GET('/gatewayevents/facilities/{facilityId}', {
          params: { path: { facilityId }, query: { eventTypes: [String(eventType)], pageSize: 10 } },
        }),
      )
    ).items;
  const lockdown = () => e2e.ok(client.GET('/facilities/{facilityId}/lockdown', { params: path }));

  // Before any controller: never connected.
  assert.equal((await statusRow()).gatewayStatus, 'error');

  const simulator = e2e.startSimulator(served.url, served.database.env, gateway, [
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
    const [gate] = await e2e.ok(client.GET('/facilities/{facilityId}/actiongroups/manual', { params: path }));
    assert.equal(gate!.name, 'Main Gate');
    const opened = await e2e.ok(
      client.POST('/facilities/{facilityId}/actiongroups/{actionGroupId}/open', {
        params: { path: { facilityId, actionGroupId: gate!.id } },
        body: {},
      }),
      200,
    );
    await e2e.eventually('the open command to be acknowledged', async () => {
      const commands = await e2e.ok(
        client.GET('/facilities/{facilityId}/commands', { params: { ...path, query: { limit: 1000 } } }),
      );
      return commands.find((c) => c.id === opened.command.id && c.status === 'acknowledged');
    });
    const log = await e2e.eventually('the Action Group Log Message', async () =>
      (await events(29)).find((e: any) => e.data?.commandId === opened.command.id),
    );
    assert.equal(log.details, 'Main Gate: open by remote command');
    const relay: any[] = await events(37);
    assert.equal(relay[0]?.data?.state, 'open');
    const devices = await e2e.ok(client.GET('/facilities/{facilityId}/devices', { params: path }));
    assert.ok(devices.some((d) => d.id === 'gate-operator' && d.lastEventType === 37));

    // A lockdown: desired at once, reported once the controller says so; the alarm column warns.
    const locked = await e2e.ok(
      client.POST('/facilities/{facilityId}/lockdown/enable', { params: path, body: {} }),
      200,
    );
    assert.deepEqual([locked.desired, locked.reported], [true, null]);
    await e2e.eventually('the lockdown to be reported', async () => (await lockdown()) === true);
    const status = await e2e.ok(client.GET('/facilities/{facilityId}/status', { params: path }));
    assert.deepEqual(status.lockdown, { reported: true, desired: true });
    assert.equal(status.gatewayControllerPlatformOverallStatus, 'warning');
    const row = await statusRow();
    assert.deepEqual([row.alarmStatus, row.alarmStatusMessage], ['warning', 'The facility is locked down.']);

    // And lifted.
    await e2e.ok(client.POST('/facilities/{facilityId}/lockdown/disable', { params: path, body: {} }));
    await e2e.eventually('the lockdown to be lifted', async () => (await lockdown()) === false);
    assert.equal((await statusRow()).alarmStatus, 'ok');
    assert.equal((await statusRow()).pmsInterfaceStatus, 'ok');
  } finally {
    stopped = await simulator.stop();
  }
  assert.equal(stopped.code, 0, stopped.stderr);
  const summary = JSON.parse(stopped.stdout);
  assert.equal(summary.rejected, 0, JSON.stringify(summary));
});

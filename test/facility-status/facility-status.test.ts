// Facility status and remote operations (SPEC §4.1) through the real app: the reported state
// follows the controller's events and polls, the words follow the rules, remote actions are
// commands acknowledged like every other, and status changes are recorded.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { EntityId } from '../../src/ids.ts';
import { postEvents } from '../events/helpers.ts';
import { ManualClock, startTestApp, type TestApp } from '../helpers/harness.ts';
import { gatewayToken, operatorToken, provisionAccount, type ProvisionedAccount } from '../helpers/tenants.ts';
import { ok, refused, typedClient } from '../helpers/client.ts';
import { call, malformed, pms, poll } from '../access-control/helpers.ts';

let t: TestApp;
let clock: ManualClock;
let account: ProvisionedAccount;
let other: ProvisionedAccount;
let facilityId: EntityId;
let quietFacilityId: EntityId;
let gateway: string;
let operator: string;
let api: ReturnType<typeof pms>;

before(async () => {
  clock = new ManualClock();
  t = await startTestApp({ clock });
  account = await provisionAccount(t, { facilities: 2 });
  other = await provisionAccount(t, { name: 'Another Storage Co' });
  facilityId = account.facilities[0]!.id;
  quietFacilityId = account.facilities[1]!.id;
  gateway = (await gatewayToken(t, facilityId)).token;
  operator = await operatorToken(t);
  api = pms(t, account.token, facilityId);
});
after(() => t.close());

const now = () => new Date(Date.now()).toISOString();
const report = (eventType: number, extra: object = {}) => ({
  eventId: randomUUID(),
  eventType,
  occurredAt: now(),
  deviceId: 'gate-1',
  deviceName: 'Front Gate',
  ...extra,
});
async function send(...events: object[]) {
  const posted = await postEvents(t, gateway, events);
  assert.equal(posted.status, 200, JSON.stringify(posted.body));
  assert.equal(posted.body.rejected.length, 0, JSON.stringify(posted.body));
}
const statusList = (token = account.token) => ok(typedClient(t, token).GET('/facilities/statuslist'), 200);
const rowOf = async (id: EntityId) => {
  const row = (await statusList()).find((r) => r.facilityId === id);
  assert.ok(row, `no status row for facility ${id}`);
  return row;
};
const facility = (at = api) => ({ params: { path: at.path } });
const devices = () => ok(api.client.GET('/facilities/{facilityId}/devices', facility()), 200);
const deviceOf = async (id: string) => {
  const device = (await devices()).find((d) => d.id === id);
  assert.ok(device, `no device ${id}`);
  return device;
};
const facilityStatus = (at = api) => ok(at.client.GET('/facilities/{facilityId}/status', facility(at)), 200);
const manualGroups = (at = api) => ok(at.client.GET('/facilities/{facilityId}/actiongroups/manual', facility(at)), 200);
const runGroup = (actionGroupId: EntityId, action: 'open' | 'hold' | 'close') =>
  api.client.POST(`/facilities/{facilityId}/actiongroups/{actionGroupId}/${action}`, {
    params: { path: { ...api.path, actionGroupId } },
  });
/** An emergency or lockdown switch: its state, or a change of it (an empty body). */
const switchState = (name: 'emergency' | 'lockdown') =>
  ok(api.client.GET(`/facilities/{facilityId}/${name}`, facility()), 200);
const setSwitch = (name: 'emergency' | 'lockdown', to: 'enable' | 'disable', at = api) =>
  at.client.POST(`/facilities/{facilityId}/${name}/${to}`, facility(at));

describe('the status list', () => {
  it('has one row per facility of the account, in the contract’s shape; a controller that never connected is an error', async () => {
    const rows = await statusList();
    assert.deepEqual(
      rows.map((r) => r.facilityId),
      account.facilities.map((f) => f.id),
    );
    const quiet = rows.find((r) => r.facilityId === quietFacilityId);
    assert.ok(quiet);
    assert.deepEqual(Object.keys(quiet).sort(), [
      'accountName',
      'alarmStatus',
      'alarmStatusMessage',
      'deviceStatus',
      'deviceStatusMessage',
      'edgeRouterPlatformDeviceStatus',
      'edgeRouterPlatformDeviceStatusMessage',
      'edgeRouterStatus',
      'edgeRouterStatusMessage',
      'facilityId',
      'facilityName',
      'facilityPropertyNumber',
      'gatewayStatus',
      'gatewayStatusMessage',
      'pmsInterfaceStatus',
      'pmsInterfaceStatusMessage',
      'sandbox',
    ]);
    assert.equal(quiet.accountName, 'Test Storage Co');
    assert.equal(quiet.sandbox, false);
    assert.equal(quiet.facilityPropertyNumber, account.facilities[1]!.propertyNumber);
    assert.equal(quiet.gatewayStatus, 'error');
    assert.match(quiet.gatewayStatusMessage, /never connected/);
    // Fields that are always null: openapi-fetch's answer type drops them (Readable<null> is never), so read
    // them from the plain object; the contract check has held them to the document.
    const plain: Record<string, unknown> = quiet;
    assert.equal(plain.edgeRouterStatus, null);
    assert.equal(plain.edgeRouterPlatformDeviceStatusMessage, null);
    assert.deepEqual([quiet.deviceStatus, quiet.alarmStatus, quiet.pmsInterfaceStatus], ['ok', 'ok', 'ok']);
  });

  it('shows another account none of this account’s facilities, and the operator every facility', async () => {
    const theirs = await statusList(other.token);
    assert.deepEqual(
      theirs.map((r) => r.facilityId),
      other.facilities.map((f) => f.id),
    );
    const all = (await statusList(operator)).map((r) => r.facilityId);
    for (const f of [...account.facilities, ...other.facilities]) assert.ok(all.includes(f.id));
  });

  it('turns the gateway ok on a poll, warning after 2 minutes of silence and error after 15', async () => {
    await ok(poll(t, gateway, { after: 0 }), 200);
    assert.equal((await rowOf(facilityId)).gatewayStatus, 'ok');
    clock.advance(3 * 60_000);
    const warning = await rowOf(facilityId);
    assert.equal(warning.gatewayStatus, 'warning');
    assert.match(warning.gatewayStatusMessage, /^Not heard from since /);
    clock.advance(13 * 60_000);
    assert.equal((await rowOf(facilityId)).gatewayStatus, 'error');
    clock.advance(-16 * 60_000);
  });
});

describe('the reported state', () => {
  it('learns devices from events, and names the offline ones', async () => {
    await send(
      report(18),
      report(11, { deviceId: 'door-5', deviceName: 'Door 5' }),
      report(12, { deviceId: 'keypad-1' }),
    );
    assert.deepEqual(
      (await devices()).map((d) => [d.id, d.name, d.status.isOffline, d.isPaired]),
      [
        ['door-5', 'Door 5', true, true],
        ['gate-1', 'Front Gate', false, true],
        ['keypad-1', 'Front Gate', false, true],
      ],
    );
    const row = await rowOf(facilityId);
    assert.equal(row.gatewayStatus, 'ok', 'events are heard too');
    assert.deepEqual([row.deviceStatus, row.deviceStatusMessage], ['error', '1 device offline: Door 5.']);
    const status = await facilityStatus();
    assert.deepEqual(status.devices, { total: 3, offline: 1 });
    assert.equal(status.gatewayControllerPlatformOverallStatus, 'error');
    assert.equal((status as Record<string, unknown>).edgeRouterPlatformOverallStatus, null);
  });

  it('keeps a device’s last event to a 10 s step: a repeat of the same type seconds later writes nothing', async () => {
    const base = Date.now() - 60_000;
    const at = (seconds: number) => new Date(base + seconds * 1000).toISOString();
    await send(report(18, { deviceId: 'pad-7', deviceName: 'Pad 7', occurredAt: at(0) }));
    await send(report(18, { deviceId: 'pad-7', deviceName: 'Pad 7', occurredAt: at(2) }));
    const pad = () => deviceOf('pad-7');
    assert.equal((await pad()).lastEventAt, at(0));
    await send(report(15, { deviceId: 'pad-7', occurredAt: at(3) }));
    assert.deepEqual([(await pad()).lastEventType, (await pad()).lastEventAt], [15, at(3)]);
  });

  it('ignores a late event: an older online event does not bring an offline device back', async () => {
    await send(report(12, { deviceId: 'door-5', occurredAt: new Date(Date.now() - 3_600_000).toISOString() }));
    assert.equal((await rowOf(facilityId)).deviceStatus, 'error');
    await send(report(12, { deviceId: 'door-5' }));
    assert.equal((await rowOf(facilityId)).deviceStatus, 'ok');
  });

  it('a device clock ahead does not keep a device online: the next offline event wins', async () => {
    await send(report(12, { deviceId: 'door-9', occurredAt: new Date(Date.now() + 4 * 60_000).toISOString() }));
    await send(report(11, { deviceId: 'door-9' }));
    const door = await deviceOf('door-9');
    assert.equal(door.status.isOffline, true);
    await send(report(12, { deviceId: 'door-9' }));
  });

  it('keeps a removed (unpaired) device listed, out of the device status, and lists it when it reports again', async () => {
    await send(report(11, { deviceId: 'old-pad' }));
    assert.equal((await rowOf(facilityId)).deviceStatus, 'error');
    await send(report(38, { deviceId: 'old-pad', data: { paired: false } }));
    assert.equal((await rowOf(facilityId)).deviceStatus, 'ok');
    await send(report(18, { deviceId: 'old-pad', deviceName: 'Old Pad' }));
    const pad = await deviceOf('old-pad');
    assert.deepEqual([pad.name, pad.isPaired, pad.lastEventType], ['Old Pad', false, 18]);
    assert.equal((await rowOf(facilityId)).deviceStatus, 'ok');
  });

  it('raises alarms (a missing data.active counts as appeared) and clears them', async () => {
    await send(report(10, { deviceId: 'door-5', deviceName: 'Door 5' }));
    const raised = await rowOf(facilityId);
    assert.deepEqual(
      [raised.alarmStatus, raised.alarmStatusMessage],
      ['error', '1 active alarm: Door alarm at Door 5.'],
    );
    const status = await facilityStatus();
    assert.deepEqual(
      status.activeAlarms.map((a) => [a.eventType, a.eventTypeName, a.deviceId]),
      [[10, 'Door Alarm', 'door-5']],
    );
    await send(report(10, { deviceId: 'door-5', data: { active: false } }));
    assert.equal((await rowOf(facilityId)).alarmStatus, 'ok');

    // A unit door alarm names its unit, found by the unit id the controller reported.
    const unit = await api.unit('B-204');
    await send(report(35, { deviceId: 'alarm-board', unitId: unit.id, data: { active: true } }));
    assert.equal((await rowOf(facilityId)).alarmStatusMessage, '1 active alarm: Unit door alarm at unit B-204.');
    await send(report(35, { deviceId: 'alarm-board', unitId: unit.id, data: { active: false } }));
    assert.equal((await rowOf(facilityId)).alarmStatus, 'ok');
  });

  it('stores an alarm event without data.active as any other event', async () => {
    const id = randomUUID();
    await send({ ...report(26, { deviceId: 'keypad-1' }), eventId: id });
    const events = await ok(
      typedClient(t, account.token).GET('/gatewayevents/facilities/{facilityId}', {
        params: { path: { facilityId }, query: { eventTypes: ['26'] } },
      }),
      200,
    );
    assert.ok(events.items.some((e) => e.id !== undefined && e.eventType === 26));
    await send(report(26, { deviceId: 'keypad-1', data: { active: false } }));
  });
});

describe('emergency and lockdown', () => {
  it('enable writes one command; enabling again while it is underway writes none', async () => {
    const before = (await api.commands({ limit: 1000 })).length;
    const first = await ok(setSwitch('emergency', 'enable'), 200);
    assert.deepEqual([first.desired, first.reported, first.command?.status], [true, null, 'pending']);
    const again = await ok(
      api.client.POST('/facilities/{facilityId}/emergency/enable', { ...facility(), body: {} }),
      200,
    );
    assert.equal(again.command?.id, first.command?.id);
    const commands = (await api.commands({ limit: 1000 })).slice(before);
    assert.deepEqual(
      commands.map((c) => [c.type, c.payload]),
      [['emergency.set', { enabled: true }]],
    );
    assert.equal(await switchState('emergency'), false, 'not reported yet');
  });

  it('follows the controller: acknowledged by event 3, in effect when event 31 says so', async () => {
    const polled = await ok(poll(t, gateway, { after: 0, limit: 1000 }), 200);
    const command = polled.commands.find((c) => c.type === 'emergency.set');
    assert.ok(command);
    await send(report(3, { data: { commandId: command.id } }), report(31, { data: { enabled: true } }));
    assert.equal(await switchState('emergency'), true);
    const status = await facilityStatus();
    assert.deepEqual(status.emergency, { reported: true, desired: true });
    assert.equal((await rowOf(facilityId)).alarmStatus, 'warning');
    const repeat = await ok(setSwitch('emergency', 'enable'), 200);
    assert.deepEqual([repeat.command?.id, repeat.command?.status], [command.id, 'acknowledged']);
  });

  it('disable writes a command; lockdown is its own switch', async () => {
    const off = await ok(setSwitch('emergency', 'disable'), 200);
    assert.deepEqual([off.desired, off.reported, off.command?.status], [false, true, 'pending']);
    const lock = await ok(setSwitch('lockdown', 'enable'), 200);
    assert.deepEqual([lock.desired, lock.reported], [true, null]);
    assert.equal(await switchState('lockdown'), false);
    assert.equal((await facilityStatus()).lockdown.desired, true);
  });

  it('needs accesscontrol:write, and answers 404 for another account’s facility', async () => {
    const stranger = pms(t, other.token, facilityId);
    await refused(setSwitch('lockdown', 'enable', stranger), 404);
    await refused(stranger.client.GET('/facilities/{facilityId}/status', facility(stranger)), 404);
  });
});

describe('action groups', () => {
  it('every facility starts with "Main Gate"; open, hold and close are commands', async () => {
    const groups = await manualGroups();
    assert.deepEqual(
      groups.map((g) => g.name),
      ['Main Gate'],
    );
    const gate = groups[0]!.id;
    for (const action of ['open', 'hold', 'close', 'open'] as const) {
      const r = await ok(runGroup(gate, action), 200);
      assert.equal(r.command.status, 'pending');
    }
    const runs = (await api.commands({ limit: 1000 })).filter((c) => c.type === 'action-group.run');
    assert.deepEqual(
      runs.map((c) => (c.payload as { action: string }).action),
      ['open', 'hold', 'close', 'open'],
    );
    assert.deepEqual(runs[0]?.payload, { actionGroupId: gate, name: 'Main Gate', action: 'open' });
  });

  it('answers 404 for an action group of another facility or account, and for an unknown action', async () => {
    const [quietGate] = await manualGroups(pms(t, account.token, quietFacilityId));
    await refused(runGroup(quietGate!.id, 'open'), 404);
    const [theirGate] = await manualGroups(pms(t, other.token, other.facilities[0]!.id));
    await refused(runGroup(theirGate!.id, 'open'), 404);
    // An action and an id the document has no words for: raw.
    const [gate] = await manualGroups();
    const raw = malformed(t, account.token, facilityId);
    assert.equal((await raw.post(`/actiongroups/${gate!.id}/explode`)).status, 404);
    assert.equal((await raw.post('/actiongroups/abc/open')).status, 404);
  });

  it('operators add action groups; a scheduled one is not listed as manual; a name is unique in any case', async () => {
    const add = (name: string, isManual: boolean, at: EntityId = facilityId) =>
      typedClient(t, operator).POST('/admin/facilities/{facilityId}/action-groups', {
        params: { path: { facilityId: at } },
        body: { name, isManual },
      });
    // Without isManual (manual by default): raw, as the generated client's type makes the field with a
    // default required (openapi-typescript's defaultNonNullable) though the document does not.
    const made = await call(t, operator, 'POST', `/admin/facilities/${facilityId}/action-groups`, {
      name: 'Loading Dock',
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    await ok(add('Night Lock', false), 201);
    const twice = await refused(add('loading dock', true), 409);
    assert.equal(twice.code, 'ACTION_GROUP_NAME_TAKEN');
    await refused(add('X', true, 999999999), 404);
    const blank = await refused(add('  ', true), 400);
    assert.equal(blank.errors?.[0]?.path, 'name');
    assert.deepEqual(
      (await manualGroups()).map((g) => g.name),
      ['Main Gate', 'Loading Dock'],
    );
    await refused(
      typedClient(t, account.token).GET('/admin/facilities/{facilityId}/action-groups', {
        params: { path: { facilityId } },
      }),
      403,
    );
  });
});

describe('the PMS interface status and recorded changes', () => {
  it('warns after 5 minutes without acknowledgement, and errs after an hour', async () => {
    const db = t.services.database.db;
    const age = (minutes: number) =>
      sql`update commands set created_at = now() - make_interval(mins => ${minutes}) where facility_id = ${quietFacilityId}::int8 and acknowledged_at is null`.execute(
        db,
      );
    const q = pms(t, account.token, quietFacilityId);
    await ok(setSwitch('lockdown', 'enable', q), 200);
    assert.equal((await rowOf(quietFacilityId)).pmsInterfaceStatus, 'ok');
    await age(6);
    assert.equal((await rowOf(quietFacilityId)).pmsInterfaceStatus, 'warning');
    await age(61);
    const row = await rowOf(quietFacilityId);
    assert.equal(row.pmsInterfaceStatus, 'error');
    assert.match(row.pmsInterfaceStatusMessage, /^Changes are not reaching the site: 1 command not yet acknowledged/);
    assert.deepEqual((await facilityStatus(q)).commands.pending, 1);
  });

  it('records each changed status word once, with its time and reason', async () => {
    const db = t.services.database.db;
    const changes = () =>
      db
        .selectFrom('facility_status_changes')
        .selectAll()
        .where('facility_id', '=', quietFacilityId)
        .orderBy('id')
        .execute();
    await t.services.facilityStatus.recordStatusChanges(Date.now());
    const first = await changes();
    assert.deepEqual(
      first.map((c) => [c.component, c.previous_status, c.status]),
      [
        ['gateway', null, 'error'],
        ['device', null, 'ok'],
        ['alarm', null, 'ok'],
        ['pmsInterface', null, 'error'],
      ],
    );
    await t.services.facilityStatus.recordStatusChanges(Date.now());
    assert.equal((await changes()).length, 4, 'nothing changed, nothing recorded');
    await ok(poll(t, (await gatewayToken(t, quietFacilityId)).token, { after: 0 }), 200);
    await t.services.facilityStatus.recordStatusChanges(Date.now());
    const last = (await changes()).at(-1)!;
    assert.deepEqual([last.component, last.previous_status, last.status], ['gateway', 'error', 'ok']);
    assert.match(last.message, /^Connected; last heard at /);
  });
});

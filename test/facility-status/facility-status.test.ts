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
import { call, pms, poll } from '../access-control/helpers.ts';

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
const statusList = async (token = account.token) => {
  const r = await call(t, token, 'GET', '/facilities/statuslist');
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as any[];
};
const rowOf = async (id: EntityId) => (await statusList()).find((row) => row.facilityId === id);

describe('the status list', () => {
  it('has one row per facility of the account, in the contract’s shape; a controller that never connected is an error', async () => {
    const rows = await statusList();
    assert.deepEqual(
      rows.map((r) => r.facilityId),
      account.facilities.map((f) => f.id),
    );
    const quiet = rows.find((r) => r.facilityId === quietFacilityId);
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
    ]);
    assert.equal(quiet.accountName, 'Test Storage Co');
    assert.equal(quiet.facilityPropertyNumber, account.facilities[1]!.propertyNumber);
    assert.equal(quiet.gatewayStatus, 'error');
    assert.match(quiet.gatewayStatusMessage, /never connected/);
    assert.equal(quiet.edgeRouterStatus, null);
    assert.equal(quiet.edgeRouterPlatformDeviceStatusMessage, null);
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
    assert.equal((await poll(t, gateway, '?after=0')).status, 200);
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
    const devices = (await api.get('/devices')).body as any[];
    assert.deepEqual(
      devices.map((d) => [d.id, d.name, d.status.isOffline, d.isPaired]),
      [
        ['door-5', 'Door 5', true, true],
        ['gate-1', 'Front Gate', false, true],
        ['keypad-1', 'Front Gate', false, true],
      ],
    );
    const row = await rowOf(facilityId);
    assert.equal(row.gatewayStatus, 'ok', 'events are heard too');
    assert.deepEqual([row.deviceStatus, row.deviceStatusMessage], ['error', '1 device offline: Door 5.']);
    const status = (await api.get('/status')).body;
    assert.deepEqual(status.devices, { total: 3, offline: 1 });
    assert.equal(status.gatewayControllerPlatformOverallStatus, 'error');
    assert.equal(status.edgeRouterPlatformOverallStatus, null);
  });

  it('keeps a device’s last event to a 10 s step: a repeat of the same type seconds later writes nothing', async () => {
    const base = Date.now() - 60_000;
    const at = (seconds: number) => new Date(base + seconds * 1000).toISOString();
    await send(report(18, { deviceId: 'pad-7', deviceName: 'Pad 7', occurredAt: at(0) }));
    await send(report(18, { deviceId: 'pad-7', deviceName: 'Pad 7', occurredAt: at(2) }));
    const pad = () => api.get('/devices').then((r) => (r.body as any[]).find((d) => d.id === 'pad-7'));
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
    const door = ((await api.get('/devices')).body as any[]).find((d) => d.id === 'door-9');
    assert.equal(door.status.isOffline, true);
    await send(report(12, { deviceId: 'door-9' }));
  });

  it('keeps a removed (unpaired) device listed, out of the device status, and lists it when it reports again', async () => {
    await send(report(11, { deviceId: 'old-pad' }));
    assert.equal((await rowOf(facilityId)).deviceStatus, 'error');
    await send(report(38, { deviceId: 'old-pad', data: { paired: false } }));
    assert.equal((await rowOf(facilityId)).deviceStatus, 'ok');
    await send(report(18, { deviceId: 'old-pad', deviceName: 'Old Pad' }));
    const pad = ((await api.get('/devices')).body as any[]).find((d) => d.id === 'old-pad');
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
    const status = (await api.get('/status')).body;
    assert.deepEqual(
      status.activeAlarms.map((a: any) => [a.eventType, a.eventTypeName, a.deviceId]),
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
    const events = await call(t, account.token, 'GET', `/gatewayevents/facilities/${facilityId}?eventTypes=26`);
    assert.ok(events.body.items.some((e: any) => e.id !== undefined && e.eventType === 26));
    await send(report(26, { deviceId: 'keypad-1', data: { active: false } }));
  });
});

describe('emergency and lockdown', () => {
  it('enable writes one command; enabling again while it is underway writes none', async () => {
    const before = (await api.commands('?limit=1000')).length;
    const first = await api.post('/emergency/enable');
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual([first.body.desired, first.body.reported, first.body.command.status], [true, null, 'pending']);
    const again = await api.post('/emergency/enable', {});
    assert.equal(again.status, 200);
    assert.equal(again.body.command.id, first.body.command.id);
    const commands = (await api.commands('?limit=1000')).slice(before);
    assert.deepEqual(
      commands.map((c) => [c.type, c.payload]),
      [['emergency.set', { enabled: true }]],
    );
    assert.equal((await api.get('/emergency')).body, false, 'not reported yet');
  });

  it('follows the controller: acknowledged by event 3, in effect when event 31 says so', async () => {
    const polled = await poll(t, gateway, '?after=0&limit=1000');
    const command = polled.body.commands.find((c: any) => c.type === 'emergency.set');
    await send(report(3, { data: { commandId: command.id } }), report(31, { data: { enabled: true } }));
    assert.equal((await api.get('/emergency')).body, true);
    const status = (await api.get('/status')).body;
    assert.deepEqual(status.emergency, { reported: true, desired: true });
    assert.equal((await rowOf(facilityId)).alarmStatus, 'warning');
    const repeat = await api.post('/emergency/enable');
    assert.deepEqual([repeat.body.command.id, repeat.body.command.status], [command.id, 'acknowledged']);
  });

  it('disable writes a command; lockdown is its own switch', async () => {
    const off = await api.post('/emergency/disable');
    assert.deepEqual([off.body.desired, off.body.reported, off.body.command.status], [false, true, 'pending']);
    const lock = await api.post('/lockdown/enable');
    assert.deepEqual([lock.body.desired, lock.body.reported], [true, null]);
    assert.equal((await api.get('/lockdown')).body, false);
    assert.equal((await api.get('/status')).body.lockdown.desired, true);
  });

  it('needs accesscontrol:write, and answers 404 for another account’s facility', async () => {
    const theirs = await call(t, other.token, 'POST', `/facilities/${facilityId}/lockdown/enable`);
    assert.equal(theirs.status, 404);
    const read = await call(t, other.token, 'GET', `/facilities/${facilityId}/status`);
    assert.equal(read.status, 404);
  });
});

describe('action groups', () => {
  it('every facility starts with "Main Gate"; open, hold and close are commands', async () => {
    const groups = (await api.get('/actiongroups/manual')).body as any[];
    assert.deepEqual(
      groups.map((g) => g.name),
      ['Main Gate'],
    );
    const gate = groups[0].id;
    for (const action of ['open', 'hold', 'close', 'open']) {
      const r = await api.post(`/actiongroups/${gate}/${action}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.command.status, 'pending');
    }
    const runs = (await api.commands('?limit=1000')).filter((c) => c.type === 'action-group.run');
    assert.deepEqual(
      runs.map((c) => c.payload.action),
      ['open', 'hold', 'close', 'open'],
    );
    assert.deepEqual(runs[0].payload, { actionGroupId: gate, name: 'Main Gate', action: 'open' });
  });

  it('answers 404 for an action group of another facility or account, and for an unknown action', async () => {
    const [quietGate] = (await call(t, account.token, 'GET', `/facilities/${quietFacilityId}/actiongroups/manual`))
      .body;
    assert.equal((await api.post(`/actiongroups/${quietGate.id}/open`)).status, 404);
    const [theirGate] = (
      await call(t, other.token, 'GET', `/facilities/${other.facilities[0]!.id}/actiongroups/manual`)
    ).body;
    assert.equal((await api.post(`/actiongroups/${theirGate.id}/open`)).status, 404);
    const [gate] = (await api.get('/actiongroups/manual')).body;
    assert.equal((await api.post(`/actiongroups/${gate.id}/explode`)).status, 404);
    assert.equal((await api.post('/actiongroups/abc/open')).status, 404);
  });

  it('operators add action groups; a scheduled one is not listed as manual; a name is unique in any case', async () => {
    const made = await call(t, operator, 'POST', `/admin/facilities/${facilityId}/action-groups`, {
      name: 'Loading Dock',
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const timed = await call(t, operator, 'POST', `/admin/facilities/${facilityId}/action-groups`, {
      name: 'Night Lock',
      isManual: false,
    });
    assert.equal(timed.status, 201);
    const twice = await call(t, operator, 'POST', `/admin/facilities/${facilityId}/action-groups`, {
      name: 'loading dock',
    });
    assert.deepEqual([twice.status, twice.body.code], [409, 'ACTION_GROUP_NAME_TAKEN']);
    const missing = await call(t, operator, 'POST', '/admin/facilities/999999999/action-groups', { name: 'X' });
    assert.equal(missing.status, 404);
    const blank = await call(t, operator, 'POST', `/admin/facilities/${facilityId}/action-groups`, { name: '  ' });
    assert.deepEqual([blank.status, blank.body.errors?.[0]?.path], [400, 'name']);
    assert.deepEqual(
      ((await api.get('/actiongroups/manual')).body as any[]).map((g) => g.name),
      ['Main Gate', 'Loading Dock'],
    );
    assert.equal((await call(t, account.token, 'GET', `/admin/facilities/${facilityId}/action-groups`)).status, 403);
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
    await q.post('/lockdown/enable');
    assert.equal((await rowOf(quietFacilityId)).pmsInterfaceStatus, 'ok');
    await age(6);
    assert.equal((await rowOf(quietFacilityId)).pmsInterfaceStatus, 'warning');
    await age(61);
    const row = await rowOf(quietFacilityId);
    assert.equal(row.pmsInterfaceStatus, 'error');
    assert.match(row.pmsInterfaceStatusMessage, /^Changes are not reaching the site: 1 command not yet acknowledged/);
    assert.deepEqual((await q.get('/status')).body.commands.pending, 1);
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
    await poll(t, (await gatewayToken(t, quietFacilityId)).token, '?after=0');
    await t.services.facilityStatus.recordStatusChanges(Date.now());
    const last = (await changes()).at(-1)!;
    assert.deepEqual([last.component, last.previous_status, last.status], ['gateway', 'error', 'ok']);
    assert.match(last.message, /^Connected; last heard at /);
  });
});

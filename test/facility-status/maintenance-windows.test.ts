// Maintenance windows (SPEC §4.1, issue 28) through the real app: the operator's admin routes (every
// bad input), and the status list and a facility's status before, during and after a window, with
// the service's clock moved instead of waiting; the status changes recorded as a window starts and ends.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { EntityId } from '../../src/ids.ts';
import { postEvents } from '../events/helpers.ts';
import { ManualClock, startTestApp, type TestApp } from '../helpers/harness.ts';
import { ok, refused, typedClient } from '../helpers/client.ts';
import { gatewayToken, operatorToken, provisionAccount, type ProvisionedAccount } from '../helpers/tenants.ts';
import { call, poll } from '../access-control/helpers.ts';

const MIN = 60_000;
let t: TestApp;
let clock: ManualClock;
let account: ProvisionedAccount;
let facilityId: EntityId;
let otherFacilityId: EntityId;
let operator: string;
let gateway: string;

before(async () => {
  clock = new ManualClock();
  t = await startTestApp({ clock });
  account = await provisionAccount(t, { facilities: 2 });
  facilityId = account.facilities[0]!.id;
  otherFacilityId = account.facilities[1]!.id;
  operator = await operatorToken(t);
  gateway = (await gatewayToken(t, facilityId)).token;
});
after(() => t.close());

/** A time `minutes` from the service's clock, as the API takes it. */
const at = (minutes: number) => new Date(clock.now() + minutes * MIN).toISOString();
const admin = () => typedClient(t, operator);
const schedule = (body: { startsAt: string; endsAt: string; reason?: string | null }, facility = facilityId) =>
  admin().POST('/admin/facilities/{facilityId}/maintenance-windows', {
    params: { path: { facilityId: facility } },
    body,
  });
const list = (query: { include?: 'upcoming' | 'all'; limit?: number; after?: number } = {}, facility = facilityId) =>
  admin().GET('/admin/facilities/{facilityId}/maintenance-windows', {
    params: { path: { facilityId: facility }, query },
  });
const cancel = (windowId: EntityId, facility = facilityId) =>
  admin().DELETE('/admin/facilities/{facilityId}/maintenance-windows/{windowId}', {
    params: { path: { facilityId: facility, windowId } },
  });
const rowOf = async (id = facilityId) => {
  const row = (await ok(typedClient(t, account.token).GET('/facilities/statuslist'), 200)).find(
    (r) => r.facilityId === id,
  );
  assert.ok(row);
  return row;
};
const statusOf = (id = facilityId) =>
  ok(
    typedClient(t, account.token).GET('/facilities/{facilityId}/status', { params: { path: { facilityId: id } } }),
    200,
  );
const pathsOf = (problem: { errors?: { path: string; message: string }[] }) =>
  (problem.errors ?? []).map((e) => `${e.path} ${e.message}`);

describe('scheduling a window', () => {
  it('answers 201 with the window, who scheduled it and its state', async () => {
    const window = await ok(schedule({ startsAt: at(60), endsAt: at(90), reason: ' Keypad firmware ' }), 201);
    assert.equal(window.facilityId, facilityId);
    assert.deepEqual(
      [window.startsAt, window.endsAt, window.reason, window.state, window.cancelledAt],
      [at(60), at(90), 'Keypad firmware', 'scheduled', null],
    );
    assert.match(window.scheduledBy, /^operator:app_/);
    assert.equal(window.createdAt, new Date(clock.now()).toISOString());
    await ok(cancel(window.id), 200);
  });

  it('starts a window whose start has passed now', async () => {
    const window = await ok(schedule({ startsAt: at(-30), endsAt: at(1) }, otherFacilityId), 201);
    assert.deepEqual([window.startsAt, window.state, window.reason], [at(0), 'underway', null]);
    await ok(cancel(window.id, otherFacilityId), 200);
  });

  it('refuses each bad field by name: dates, an end not after the start or past, over 7 days, a long reason', async () => {
    const stored = (await ok(list({ include: 'all' }), 200)).length;
    const bad = async (body: Record<string, unknown>) =>
      pathsOf(
        (await call(t, operator, 'POST', `/admin/facilities/${facilityId}/maintenance-windows`, body)).body as {
          errors: { path: string; message: string }[];
        },
      );
    const notADate = 'must be an ISO 8601 date-time with an offset, e.g. 2026-11-01T00:00:00Z';
    assert.deepEqual(await bad({ startsAt: 'tomorrow', endsAt: '2026-02-30T10:00:00Z' }), [
      `startsAt ${notADate}`,
      `endsAt ${notADate}`,
    ]);
    assert.deepEqual(await bad({ startsAt: at(10), endsAt: at(10).replace('Z', '') }), [`endsAt ${notADate}`]);
    assert.deepEqual(await bad({ startsAt: at(10), endsAt: at(5) }), ['endsAt must be after startsAt']);
    assert.deepEqual(await bad({ startsAt: at(-60), endsAt: at(-1) }), [
      'endsAt must be in the future: the window would already be over',
    ]);
    assert.deepEqual(await bad({ startsAt: at(0), endsAt: at(7 * 24 * 60 + 1) }), [
      'endsAt must be at most 7 days after the window starts',
    ]);
    const long = await bad({ startsAt: at(0), endsAt: at(5), reason: 'x'.repeat(201) });
    assert.equal(long.length, 1);
    assert.match(long[0]!, /^reason must be/);
    assert.match((await bad({ startsAt: at(0), endsAt: at(5), reason: 12 }))[0]!, /^reason /);
    assert.deepEqual(
      (await bad({ endsAt: at(5) })).map((f) => f.split(' ')[0]),
      ['startsAt'],
      'startsAt is required',
    );
    assert.equal((await ok(list({ include: 'all' }), 200)).length, stored, 'nothing was stored');
  });

  it('answers 404 for a facility that does not exist, 403 to a token without admin', async () => {
    const missing = await refused(schedule({ startsAt: at(0), endsAt: at(5) }, 999_999_999), 404);
    assert.match(missing.detail ?? '', /facility/);
    await refused(list({}, 999_999_999), 404);
    await refused(
      typedClient(t, account.token).POST('/admin/facilities/{facilityId}/maintenance-windows', {
        params: { path: { facilityId } },
        body: { startsAt: at(0), endsAt: at(5) },
      }),
      403,
    );
  });
});

describe('listing and cancelling windows', () => {
  it('lists those underway and to come by start, every one with include=all newest first, in pages', async () => {
    const later = await ok(schedule({ startsAt: at(300), endsAt: at(320) }, otherFacilityId), 201);
    const sooner = await ok(schedule({ startsAt: at(100), endsAt: at(120) }, otherFacilityId), 201);
    const cancelled = await ok(schedule({ startsAt: at(200), endsAt: at(220) }, otherFacilityId), 201);
    await ok(cancel(cancelled.id, otherFacilityId), 200);
    const ids = async (query: Parameters<typeof list>[0]) =>
      (await ok(list(query, otherFacilityId), 200)).map((w) => w.id);
    assert.deepEqual(await ids({}), [sooner.id, later.id]);
    assert.deepEqual(await ids({ limit: 1 }), [sooner.id]);
    assert.deepEqual(await ids({ limit: 1, after: sooner.id }), [later.id]);
    const all = await ok(list({ include: 'all' }, otherFacilityId), 200);
    assert.deepEqual(
      all.slice(0, 3).map((w) => [w.id, w.state]),
      [
        [later.id, 'scheduled'],
        [cancelled.id, 'cancelled'],
        [sooner.id, 'scheduled'],
      ],
    );
    assert.deepEqual(await ids({ include: 'all', limit: 1, after: cancelled.id }), [sooner.id]);
    // Another facility's window as a cursor, a limit out of range: named.
    const theirs = await ok(schedule({ startsAt: at(100), endsAt: at(120) }), 201);
    const notHere = await refused(list({ after: theirs.id }, otherFacilityId), 400);
    assert.deepEqual(pathsOf(notHere), ['after must be the id of a maintenance window of this facility']);
    assert.deepEqual((await refused(list({ limit: 1001 }, otherFacilityId), 400)).errors?.[0]?.path, 'limit');
    await ok(cancel(theirs.id), 200);
    await ok(cancel(sooner.id, otherFacilityId), 200);
    await ok(cancel(later.id, otherFacilityId), 200);
  });

  it('answers a repeated cancel with the window as it is; 404 for an unknown window or another facility’s; 409 once it ended', async () => {
    const window = await ok(schedule({ startsAt: at(10), endsAt: at(20) }), 201);
    const first = await ok(cancel(window.id), 200);
    assert.deepEqual([first.state, first.cancelledAt], ['cancelled', new Date(clock.now()).toISOString()]);
    assert.match(first.cancelledBy ?? '', /^operator:app_/);
    clock.advance(MIN);
    assert.deepEqual(await ok(cancel(window.id), 200), first, 'unchanged');
    clock.advance(-MIN);
    await refused(cancel(window.id, otherFacilityId), 404);
    await refused(cancel(999_999_999), 404);
    await refused(cancel(window.id, 999_999_999), 404);
    const short = await ok(schedule({ startsAt: at(0), endsAt: at(5) }), 201);
    clock.advance(6 * MIN);
    try {
      const over = await refused(cancel(short.id), 409);
      assert.equal(over.code, 'MAINTENANCE_WINDOW_OVER');
      assert.equal((await ok(list({ include: 'all' }), 200)).find((w) => w.id === short.id)?.state, 'ended');
    } finally {
      clock.advance(-6 * MIN);
    }
    await ok(cancel(short.id), 200); // underway again, now that the clock is back
  });
});

describe('the status during a window', () => {
  it('says maintenance for the gateway and devices while it is underway, alarms still show, and the usual words after it', async () => {
    // The controller connects, reports an offline keypad and a door alarm.
    await ok(poll(t, gateway, { after: 0 }), 200);
    const now = new Date(Date.now()).toISOString();
    const posted = await postEvents(t, gateway, [
      { eventId: randomUUID(), eventType: 11, occurredAt: now, deviceId: 'keypad-1', deviceName: 'Keypad 1' },
      { eventId: randomUUID(), eventType: 10, occurredAt: now, deviceId: 'door-5', deviceName: 'Door 5' },
    ]);
    assert.equal(posted.status, 200);
    const window = await ok(schedule({ startsAt: at(10), endsAt: at(40), reason: 'Firmware 4.2' }), 201);
    const end = window.endsAt.replace('.000Z', 'Z');
    const before = await rowOf();
    assert.deepEqual([before.gatewayStatus, before.deviceStatus], ['ok', 'error'], 'not yet underway');
    assert.equal((await statusOf()).maintenance, null);

    clock.advance(20 * MIN); // underway; the controller has been silent for 20 minutes
    try {
      const row = await rowOf();
      assert.equal(row.gatewayStatus, 'maintenance');
      assert.match(
        row.gatewayStatusMessage,
        new RegExp(`^Maintenance until ${end} \\(Firmware 4\\.2\\): not heard from since `),
      );
      assert.deepEqual(
        [row.deviceStatus, row.deviceStatusMessage],
        ['maintenance', `Maintenance until ${end} (Firmware 4.2): 1 device offline: Keypad 1.`],
      );
      assert.deepEqual([row.alarmStatus, row.alarmStatusMessage], ['error', '1 active alarm: Door alarm at Door 5.']);
      const status = await statusOf();
      assert.deepEqual(status.maintenance, {
        id: window.id,
        startsAt: window.startsAt,
        endsAt: window.endsAt,
        reason: 'Firmware 4.2',
      });
      assert.equal(status.gatewayControllerPlatformOverallStatus, 'error', 'a door alarm is still an alarm');
      assert.equal((await rowOf(otherFacilityId)).gatewayStatus, 'error', 'only the facility of the window');

      clock.advance(20 * MIN); // the window is over: the usual rules, at once
      const after = await rowOf();
      assert.deepEqual([after.gatewayStatus, after.deviceStatus], ['error', 'error']);
      assert.equal((await statusOf()).maintenance, null);
    } finally {
      clock.advance(-40 * MIN);
    }
    // Clear the alarm and bring the keypad back for the tests after this one.
    const cleared = await postEvents(t, gateway, [
      { eventId: randomUUID(), eventType: 12, occurredAt: new Date().toISOString(), deviceId: 'keypad-1' },
      {
        eventId: randomUUID(),
        eventType: 10,
        occurredAt: new Date().toISOString(),
        deviceId: 'door-5',
        data: { active: false },
      },
    ]);
    assert.equal(cleared.status, 200);
    await ok(cancel(window.id), 200);
  });

  it('makes the overall status maintenance when nothing worse shows; a cancel ends a window underway now', async () => {
    const window = await ok(schedule({ startsAt: at(0), endsAt: at(60) }), 201);
    clock.advance(30 * MIN);
    try {
      const status = await statusOf();
      assert.equal(status.gatewayControllerPlatformOverallStatus, 'maintenance');
      assert.match(
        status.gatewayControllerPlatformOverallStatusMessage,
        /^Maintenance until .*: not heard from since /,
      );
      const cancelled = await ok(cancel(window.id), 200);
      assert.equal(cancelled.state, 'cancelled');
      assert.equal(cancelled.endsAt, window.endsAt, 'the schedule is kept');
      assert.equal((await rowOf()).gatewayStatus, 'error');
      assert.equal((await statusOf()).maintenance, null);
    } finally {
      clock.advance(-30 * MIN);
    }
  });

  it('records the change to maintenance when a window starts and back when it ends (the facility.status facts)', async () => {
    const db = t.services.database.db;
    const changes = async () =>
      (
        await db
          .selectFrom('facility_status_changes')
          .select(['component', 'previous_status', 'status', 'message'])
          .where('facility_id', '=', otherFacilityId)
          .orderBy('id')
          .execute()
      ).map((c) => [c.component, c.previous_status, c.status]);
    const record = () => t.services.facilityStatus.recordStatusChanges(clock.now());
    await record();
    const initial = (await changes()).length;
    const window = await ok(
      schedule({ startsAt: at(5), endsAt: at(15), reason: 'Gateway swap' }, otherFacilityId),
      201,
    );
    clock.advance(6 * MIN);
    try {
      await record();
      assert.deepEqual((await changes()).slice(initial), [
        ['gateway', 'error', 'maintenance'],
        ['device', 'ok', 'maintenance'],
      ]);
      clock.advance(10 * MIN);
      await record();
      assert.deepEqual((await changes()).slice(initial + 2), [
        ['gateway', 'maintenance', 'error'],
        ['device', 'maintenance', 'ok'],
      ]);
    } finally {
      clock.advance(-16 * MIN);
    }
    assert.equal(window.state, 'scheduled');
  });
});

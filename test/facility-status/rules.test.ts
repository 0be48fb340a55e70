// The facility status rules (SPEC §4.1), without I/O.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  alarmStatus,
  controllerContact,
  deviceStatus,
  facilityStatuses,
  gatewayStatus,
  judgeMaintenanceWindow,
  maintenanceAt,
  type MaintenanceWindowTimes,
  needsSwitchCommand,
  overallStatus,
  pmsInterfaceStatus,
  reduceBatch,
  parseDateTime,
  reportShows,
  type ReportedEvent,
  type StatusFacts,
  windowState,
} from '../../src/facility-status/rules.ts';

const T = Date.parse('2026-11-23T12:00:00Z');
const MIN = 60_000;
const event = (eventType: number, minutes: number, extra: Partial<ReportedEvent> = {}): ReportedEvent => ({
  eventType,
  occurredAt: T + minutes * MIN,
  deviceId: 'gate-1',
  deviceName: 'Front Gate',
  unitId: null,
  data: null,
  ...extra,
});
const facts = (over: Partial<StatusFacts> = {}): StatusFacts => ({
  lastEventReceivedAt: null,
  lastPolledAt: null,
  deviceCount: 0,
  offlineDevices: [],
  activeAlarms: [],
  emergencyReported: null,
  lockdownReported: null,
  pendingCommands: 0,
  oldestPendingAt: null,
  maintenanceWindows: [],
  openDrift: null,
  ...over,
});

describe('the reported state of a batch', () => {
  it('keeps, per device, the newest online/offline word by occurredAt, whatever the order in the batch', () => {
    const report = reduceBatch([event(11, 2), event(12, 1), event(18, 0)], T + 10 * MIN);
    assert.equal(report.devices.length, 1);
    assert.deepEqual(report.devices[0]!.offline, { value: true, at: T + 2 * MIN });
    assert.equal(report.devices[0]!.lastEventType, 11);
    assert.equal(report.devices[0]!.lastEventAt, T + 2 * MIN);
  });

  it('reads a missing data.active as an alarm that appeared, and false as cleared', () => {
    const report = reduceBatch(
      [
        event(10, 0, { deviceId: 'door-5', deviceName: 'Door 5' }),
        event(26, 0, { deviceId: 'keypad', data: { active: true } }),
        event(26, 1, { deviceId: 'keypad', data: { active: false } }),
        event(35, 0, { deviceId: 'u-sensor', unitId: 104, data: { active: 'yes' } }),
      ],
      T + 10 * MIN,
    );
    const bySource = Object.fromEntries(report.alarms.map((a) => [`${a.eventType} ${a.source}`, a.active]));
    assert.deepEqual(bySource, { '10 device:door-5': true, '26 device:keypad': false, '35 unit:104': true });
  });

  it('reads emergency and lockdown from data.enabled (missing: entered), the newest winning', () => {
    const report = reduceBatch(
      [event(31, 1, { data: { enabled: false } }), event(31, 0), event(32, 0, { data: { enabled: true } })],
      T + 10 * MIN,
    );
    assert.deepEqual(report.emergency, { enabled: false, at: T + MIN });
    assert.deepEqual(report.lockdown, { enabled: true, at: T });
  });

  it('counts a device clock ahead as the time received: an online event from the future does not outrank the next batch', () => {
    const received = T;
    const ahead = reduceBatch([event(12, 4)], received); // 4 minutes ahead: kept by ingest
    assert.equal(ahead.devices[0]!.offline!.at, received);
    const next = reduceBatch([event(11, 1)], received + 2 * MIN);
    assert.ok(next.devices[0]!.offline!.at > ahead.devices[0]!.offline!.at);
  });

  it('marks a device unpaired by event 38 with data.paired false, and paired again by 36', () => {
    assert.deepEqual(reduceBatch([event(38, 0, { data: { paired: false } })], T).devices[0]!.paired, {
      value: false,
      at: T,
    });
    assert.deepEqual(
      reduceBatch([event(38, 0, { data: { paired: false } }), event(36, 1)], T + MIN).devices[0]!.paired,
      {
        value: true,
        at: T + MIN,
      },
    );
  });
});

describe('the status words', () => {
  it('gateway: ok within 2 minutes of the last poll or events, warning within 15, error after, error when never heard', () => {
    assert.equal(gatewayStatus(facts(), T).status, 'error');
    assert.match(gatewayStatus(facts(), T).message, /never connected/);
    assert.equal(gatewayStatus(facts({ lastPolledAt: T - 2 * MIN }), T).status, 'ok');
    assert.equal(gatewayStatus(facts({ lastPolledAt: T - 2 * MIN - 1 }), T).status, 'warning');
    assert.equal(gatewayStatus(facts({ lastEventReceivedAt: T - 15 * MIN }), T).status, 'warning');
    const silent = gatewayStatus(facts({ lastEventReceivedAt: T - 15 * MIN - 1, lastPolledAt: T - 20 * MIN }), T);
    assert.equal(silent.status, 'error');
    assert.match(silent.message, /since 2026-11-23T11:44:59\.999Z/);
  });

  it('device: error naming the offline devices, ok otherwise', () => {
    const offline = deviceStatus(facts({ deviceCount: 3, offlineDevices: ['Door 5', 'Front Gate'] }), T);
    assert.deepEqual(offline, { status: 'error', message: '2 devices offline: Door 5, Front Gate.' });
    assert.equal(deviceStatus(facts({ deviceCount: 3 }), T).status, 'ok');
  });

  it('alarm: error while an alarm is active, warning while emergency or lockdown is on, ok otherwise', () => {
    assert.equal(
      alarmStatus(facts({ activeAlarms: ['Door alarm at Door 5'], lockdownReported: true })).status,
      'error',
    );
    assert.deepEqual(alarmStatus(facts({ lockdownReported: true })), {
      status: 'warning',
      message: 'The facility is locked down.',
    });
    assert.equal(alarmStatus(facts({ emergencyReported: true })).status, 'warning');
    assert.equal(alarmStatus(facts({ emergencyReported: false, lockdownReported: false })).status, 'ok');
  });

  it('pmsInterface: warning after 5 minutes without acknowledgement, error after an hour', () => {
    const at = (minutes: number) =>
      pmsInterfaceStatus(facts({ pendingCommands: 2, oldestPendingAt: T - minutes * MIN }), T);
    assert.equal(at(5).status, 'ok');
    assert.equal(at(6).status, 'warning');
    assert.equal(at(60).status, 'warning');
    assert.equal(at(61).status, 'error');
    assert.equal(pmsInterfaceStatus(facts(), T).status, 'ok');
  });

  it('pmsInterface: a warning while a drift is unhealed; commands not reaching the site stay an error', () => {
    const openDrift = { foundAt: T - 2 * MIN, items: 9 };
    assert.deepEqual(pmsInterfaceStatus(facts({ openDrift }), T), {
      status: 'warning',
      message:
        'The controller has differed from the PMS since 2026-11-23T11:58:00Z (9 items); corrections are on their way.',
    });
    const stuck = pmsInterfaceStatus(facts({ openDrift, pendingCommands: 9, oldestPendingAt: T - 61 * MIN }), T);
    assert.equal(stuck.status, 'error');
    assert.match(stuck.message, /^Changes are not reaching the site: .* The controller has differed from the PMS/);
    const slow = pmsInterfaceStatus(facts({ openDrift, pendingCommands: 9, oldestPendingAt: T - 6 * MIN }), T);
    assert.equal(slow.status, 'warning');
    assert.match(slow.message, /^Changes are slow to reach the site: .* The controller has differed/);
  });

  it('overall: the worst part, with the messages of every part at that level', () => {
    const overall = overallStatus(
      facilityStatuses(
        facts({ lastPolledAt: T, offlineDevices: ['Door 5'], deviceCount: 1, lockdownReported: true }),
        T,
      ),
    );
    assert.equal(overall.status, 'error');
    assert.equal(overall.message, '1 device offline: Door 5.');
  });
});

describe('a remote switch asked for again', () => {
  it('sends a command when the request changes what is asked for', () => {
    assert.equal(needsSwitchCommand({ requested: true, desired: null, reported: null, underway: false }), true);
    assert.equal(needsSwitchCommand({ requested: true, desired: false, reported: true, underway: false }), true);
  });
  it('sends none while the same request is underway, or once the controller reports it', () => {
    assert.equal(needsSwitchCommand({ requested: true, desired: true, reported: false, underway: true }), false);
    assert.equal(needsSwitchCommand({ requested: true, desired: true, reported: true, underway: false }), false);
  });
  it('sends one again when the controller reports otherwise and nothing is underway', () => {
    assert.equal(needsSwitchCommand({ requested: true, desired: true, reported: false, underway: false }), true);
  });
});

describe('a batch that would change nothing', () => {
  const STEP = 10_000;
  const written = () => ({ heardAt: T, devices: new Map([['gate-1', { type: 18, name: 'Front Gate', at: T }]]) });
  const shows = (events: ReportedEvent[], receivedAt: number, state = written()) =>
    reportShows(reduceBatch(events, receivedAt), receivedAt, state, STEP);

  it('writes nothing when the same device reports the same type within the step', () => {
    assert.equal(shows([event(18, 0.05)], T + 5_000), false);
  });
  it('writes when nothing was written yet, after the step, for another type, name or device, and for every word', () => {
    assert.equal(reportShows(reduceBatch([event(18, 0)], T), T, undefined, STEP), true);
    assert.equal(shows([event(18, 0.05)], T + STEP + 1), true, 'last heard moved a step');
    assert.equal(shows([event(15, 0.05)], T + 5_000), true, 'another type');
    assert.equal(shows([event(18, 0.05, { deviceName: 'Gate A' })], T + 5_000), true, 'another name');
    assert.equal(shows([event(18, 0.05, { deviceId: 'door-2' })], T + 5_000), true, 'a new device');
    for (const type of [10, 11, 12, 31, 32, 36, 38])
      assert.equal(shows([event(type, 0.05)], T + 5_000), true, `event ${type}`);
  });
});

describe('what a remote action’s answer says of the controller (issue 28)', () => {
  it('never connected; connected up to 2 minutes of silence (the gateway’s ok); after that, not heard since', () => {
    assert.deepEqual(controllerContact(null, T), {
      lastHeardAt: null,
      connected: false,
      message: 'The controller has never connected; the command waits for it.',
    });
    assert.deepEqual(controllerContact(T - 2 * MIN, T), {
      lastHeardAt: '2026-11-23T11:58:00.000Z',
      connected: true,
      message: 'Connected; last heard at 2026-11-23T11:58:00Z.',
    });
    assert.deepEqual(controllerContact(T - 2 * MIN - 1, T), {
      lastHeardAt: '2026-11-23T11:57:59.999Z',
      connected: false,
      message: 'The controller has not been heard from since 2026-11-23T11:57:59.999Z; the command waits for it.',
    });
    assert.equal(gatewayStatus(facts({ lastPolledAt: T - 2 * MIN - 1 }), T).status, 'warning', 'the same threshold');
  });
});

describe('maintenance windows', () => {
  const window = (from: number, to: number, over: Partial<MaintenanceWindowTimes> = {}): MaintenanceWindowTimes => ({
    id: 1,
    startsAt: T + from * MIN,
    endsAt: T + to * MIN,
    cancelledAt: null,
    reason: 'Keypad firmware',
    ...over,
  });
  const during = (over: Partial<StatusFacts> = {}) => facts({ maintenanceWindows: [window(-10, 20)], ...over });

  it('is underway from its start to its end, or to its cancellation; a window cancelled before it starts never is', () => {
    const w = window(0, 30);
    assert.deepEqual(
      [-1, 0, 29, 30].map((m) => [maintenanceAt([w], T + m * MIN) !== null, windowState(w, T + m * MIN)]),
      [
        [false, 'scheduled'],
        [true, 'underway'],
        [true, 'underway'],
        [false, 'ended'],
      ],
    );
    const cut = window(0, 30, { cancelledAt: T + 10 * MIN });
    assert.notEqual(maintenanceAt([cut], T + 9 * MIN), null);
    assert.equal(maintenanceAt([cut], T + 10 * MIN), null);
    assert.equal(windowState(cut, T + 10 * MIN), 'cancelled');
    assert.equal(maintenanceAt([window(5, 30, { cancelledAt: T })], T + 6 * MIN), null);
  });

  it('names the window that ends last when windows overlap', () => {
    const first = window(0, 30, { id: 1 });
    const second = window(20, 60, { id: 2 });
    assert.equal(maintenanceAt([second, first], T + 10 * MIN)?.id, 1);
    assert.equal(maintenanceAt([first, second], T + 25 * MIN)?.id, 2);
    assert.equal(maintenanceAt([first, window(20, 60, { id: 2, cancelledAt: T + 21 * MIN })], T + 25 * MIN)?.id, 1);
  });

  it('turns a silent or never-heard gateway into maintenance, naming the end and reason, then what it would say', () => {
    assert.deepEqual(gatewayStatus(during({ lastPolledAt: T - 60 * MIN }), T), {
      status: 'maintenance',
      message: 'Maintenance until 2026-11-23T12:20:00Z (Keypad firmware): not heard from since 2026-11-23T11:00:00Z.',
    });
    assert.deepEqual(gatewayStatus(during(), T), {
      status: 'maintenance',
      message: 'Maintenance until 2026-11-23T12:20:00Z (Keypad firmware): the gateway controller has never connected.',
    });
    const connected = gatewayStatus(
      during({ lastPolledAt: T, maintenanceWindows: [window(-1, 5, { reason: null })] }),
      T,
    );
    assert.deepEqual(connected, {
      status: 'maintenance',
      message: 'Maintenance until 2026-11-23T12:05:00Z: connected; last heard at 2026-11-23T12:00:00Z.',
    });
    // After the window: the usual rules at once.
    assert.equal(gatewayStatus(during({ lastPolledAt: T - 60 * MIN }), T + 20 * MIN).status, 'error');
    // Before it: the usual rules.
    assert.equal(gatewayStatus(facts({ maintenanceWindows: [window(5, 20)] }), T).status, 'error');
  });

  it('turns offline devices into maintenance; alarms and the PMS interface keep their rules', () => {
    assert.deepEqual(deviceStatus(during({ deviceCount: 2, offlineDevices: ['Keypad 1'] }), T), {
      status: 'maintenance',
      message: 'Maintenance until 2026-11-23T12:20:00Z (Keypad firmware): 1 device offline: Keypad 1.',
    });
    assert.equal(deviceStatus(during({ deviceCount: 2 }), T).status, 'maintenance');
    const all = facilityStatuses(
      during({
        activeAlarms: ['Door alarm at Door 5'],
        pendingCommands: 1,
        oldestPendingAt: T - 10 * MIN,
        lastPolledAt: T - 30 * MIN,
      }),
      T,
    );
    assert.deepEqual(
      [all.gateway.status, all.device.status, all.alarm.status, all.pmsInterface.status],
      ['maintenance', 'maintenance', 'error', 'warning'],
    );
  });

  it('ranks above ok and below warning and error in the overall status', () => {
    const quiet = overallStatus(facilityStatuses(during({ lastPolledAt: T - 60 * MIN, deviceCount: 2 }), T));
    assert.equal(quiet.status, 'maintenance');
    assert.equal(
      quiet.message,
      'Maintenance until 2026-11-23T12:20:00Z (Keypad firmware): not heard from since 2026-11-23T11:00:00Z. ' +
        'Maintenance until 2026-11-23T12:20:00Z (Keypad firmware): all 2 devices online.',
    );
    assert.equal(overallStatus(facilityStatuses(during({ lockdownReported: true }), T)).status, 'warning');
    assert.equal(overallStatus(facilityStatuses(during({ activeAlarms: ['Tamper'] }), T)).status, 'error');
  });

  it('judges a new window: each bad field named; a start in the past starts it now', () => {
    const at = (minutes: number) => new Date(T + minutes * MIN).toISOString();
    const judge = (startsAt: string, endsAt: string, reason?: string | null) =>
      judgeMaintenanceWindow({ startsAt, endsAt, reason }, T);
    const good = judge(at(10), at(40), '  Firmware  ');
    assert.deepEqual(good, { faults: [], startsAt: T + 10 * MIN, endsAt: T + 40 * MIN, reason: 'Firmware' });
    assert.deepEqual(judge(at(-30), at(5), '').startsAt, T, 'a start in the past is now');
    assert.equal(judge(at(0), at(5), '   ').reason, null);
    const faults = (startsAt: string, endsAt: string, reason?: string) =>
      judge(startsAt, endsAt, reason).faults.map((f) => `${f.path} ${f.message}`);
    assert.deepEqual(faults(at(10), at(10)), ['endsAt must be after startsAt']);
    assert.deepEqual(faults(at(-30), at(-10)), ['endsAt must be in the future: the window would already be over']);
    assert.deepEqual(faults(at(0), at(7 * 24 * 60 + 1)), ['endsAt must be at most 7 days after the window starts']);
    assert.deepEqual(judge(at(-60), at(7 * 24 * 60)).faults, [], '7 days from now, when the start has passed');
    assert.deepEqual(faults('2026-02-30T10:00:00Z', 'tomorrow', 'x'.repeat(201)), [
      'startsAt must be an ISO 8601 date-time with an offset, e.g. 2026-11-01T00:00:00Z',
      'endsAt must be an ISO 8601 date-time with an offset, e.g. 2026-11-01T00:00:00Z',
      'reason must be at most 200 characters',
    ]);
    assert.deepEqual(faults(at(0), at(5), '🔧'.repeat(200)), [], 'counted in characters');
  });

  it('reads only ISO 8601 date-times with an offset', () => {
    assert.equal(parseDateTime('2026-11-23T05:00:00-07:00'), T);
    assert.equal(parseDateTime('2026-11-23T12:00Z'), T);
    for (const bad of ['2026-11-23T12:00:00', '2026-11-23', '2026-02-29T00:00:00Z', 'Nov 23 2026 12:00 UTC', ''])
      assert.equal(parseDateTime(bad), null, bad);
  });
});

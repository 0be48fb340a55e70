// The simulated controller's rules: applying commands to its copy, the keypad decision, lockout,
// doors and open hours. Pure functions, no service.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  applyCommand,
  emptyState,
  visitorByCode,
  type ControllerState,
  type VisitorCopy,
} from '../../src/simulator/controller.ts';
import {
  commandReports,
  decideEntry,
  doorOpened,
  LOCKOUT,
  nextLockout,
  noLockout,
  openingChange,
  type Keypad,
  type KeypadLockout,
} from '../../src/simulator/decide.ts';

const gate: Keypad = { id: 'kp-gate', name: 'Main Gate Keypad', area: 'gate' };
const building: Keypad = { id: 'kp-b', name: 'Building A Door Keypad', area: 'building-a' };
const allDay = {
  id: 1,
  name: '24 Hours',
  timeZone: 'America/Denver',
  windows: [{ days: [0, 1, 2, 3, 4, 5, 6], start: '00:00', end: '24:00' }],
};
const business = {
  id: 2,
  name: 'Business Hours',
  timeZone: 'America/Denver',
  windows: [{ days: [0, 1, 2, 3, 4, 5, 6], start: '06:00', end: '22:00' }],
};
const allAccess = { id: 1, name: 'All Access', accessAreas: null };
const gateOnly = { id: 2, name: 'Gate Only', accessAreas: ['gate'] };
// Monday 2026-03-02 12:00 in Denver (19:00 UTC); 23:00 Denver is 06:00 UTC the next day.
const NOON = Date.parse('2026-03-02T19:00:00Z');
const NIGHT = Date.parse('2026-03-03T06:00:00Z');

function visitor(overrides: Partial<VisitorCopy> = {}): VisitorCopy {
  return {
    id: 11,
    unitId: 21,
    unitNumber: 'A101',
    firstName: 'Pat',
    lastName: 'Lee',
    isTenant: true,
    isEnabled: true,
    accessCode: '1234',
    timeGroup: allDay,
    accessProfile: allAccess,
    ...overrides,
  };
}

function stateWith(v: VisitorCopy, unitStatus: 'Rented' | 'Delinquent' = 'Rented'): ControllerState {
  let s = applyCommand(emptyState(), {
    id: 'c1',
    sequence: 1,
    type: 'unit.upsert',
    payload: { action: 'create', unit: { id: v.unitId, unitNumber: v.unitNumber, status: unitStatus } },
  });
  s = applyCommand(s, { id: 'c2', sequence: 2, type: 'visitor.upsert', payload: { action: 'create', visitor: v } });
  return s;
}

describe('applying commands', () => {
  it('keeps units and visitors, learns the time zone, and never changes the state it was given', () => {
    const s0 = emptyState();
    const s1 = stateWith(visitor());
    assert.equal(s0.units.size, 0);
    assert.equal(s1.units.get(21)?.status, 'Rented');
    assert.equal(s1.visitors.get(11)?.accessCode, '1234');
    assert.equal(s1.timeZone, 'America/Denver');
    const s2 = applyCommand(s1, {
      id: 'c3',
      sequence: 3,
      type: 'unit.upsert',
      payload: { action: 'disable', unit: { id: 21, unitNumber: 'A101', status: 'Delinquent' } },
    });
    assert.equal(s1.units.get(21)?.status, 'Rented');
    assert.equal(s2.units.get(21)?.status, 'Delinquent');
  });

  it('vacate and delete drop the unit’s visitors; remove drops one; refreshes replace everything', () => {
    const s = stateWith(visitor());
    const vacated = applyCommand(s, {
      id: 'c',
      sequence: 3,
      type: 'unit.vacate',
      payload: { unit: { id: 21, unitNumber: 'A101', status: 'Vacant' }, removedVisitorIds: [11] },
    });
    assert.equal(vacated.visitors.size, 0);
    assert.equal(vacated.units.get(21)?.status, 'Vacant');
    assert.equal(applyCommand(s, { id: 'c', sequence: 3, type: 'unit.delete', payload: { unitId: 21 } }).units.size, 0);
    assert.equal(
      applyCommand(s, { id: 'c', sequence: 3, type: 'visitor.remove', payload: { visitorId: 11 } }).visitors.size,
      0,
    );
    const refreshed = applyCommand(s, {
      id: 'c',
      sequence: 3,
      type: 'units.refresh',
      payload: { units: [{ id: 'u9', unitNumber: 'Z9', status: 'Vacant' }] },
    });
    assert.deepEqual([...refreshed.units.keys()], ['u9']);
    const visitors = applyCommand(s, {
      id: 'c',
      sequence: 3,
      type: 'visitors.refresh',
      payload: { visitors: [visitor({ id: 12, accessCode: '999' })] },
    });
    assert.deepEqual([...visitors.visitors.keys()], [12]);
    assert.equal(
      applyCommand(s, { id: 'c', sequence: 3, type: 'something.new', payload: {} }),
      s,
      'an unknown type changes nothing',
    );
  });

  it('applying the same command twice gives the same state (a redelivered command is harmless)', () => {
    const command = {
      id: 'c',
      sequence: 3,
      type: 'visitor.upsert',
      payload: { visitor: visitor({ accessCode: '777' }) },
    };
    const once = applyCommand(stateWith(visitor()), command);
    const twice = applyCommand(once, command);
    assert.deepEqual([...twice.visitors.entries()], [...once.visitors.entries()]);
  });

  it('finds a code among enabled visitors only', () => {
    const s = stateWith(visitor({ isEnabled: false }));
    assert.equal(visitorByCode(s, '1234'), undefined);
    assert.equal(visitorByCode(stateWith(visitor()), '1234')?.id, 11);
  });
});

describe('the keypad decision', () => {
  const decide = (s: ControllerState, code: string, keypad = gate, at = NOON, lockout: KeypadLockout = noLockout) =>
    decideEntry(s, keypad, code, at, lockout);

  it('18 for a valid code in its time group and access area, naming visitor and unit', () => {
    const d = decide(stateWith(visitor()), '1234');
    assert.equal(d.eventType, 18);
    assert.equal(d.visitorId, 11);
    assert.equal(d.unitId, 21);
  });
  it('15 for a code nobody has, and for a disabled visitor’s code', () => {
    assert.equal(decide(stateWith(visitor()), '9999').eventType, 15);
    assert.equal(decide(stateWith(visitor({ isEnabled: false })), '1234').eventType, 15);
  });
  it('17 when the visitor’s unit is delinquent (before time and area)', () => {
    assert.equal(
      decide(
        stateWith(visitor({ timeGroup: business, accessProfile: gateOnly }), 'Delinquent'),
        '1234',
        building,
        NIGHT,
      ).eventType,
      17,
    );
  });
  it('19 outside the visitor’s time group', () => {
    assert.equal(decide(stateWith(visitor({ timeGroup: business })), '1234', gate, NIGHT).eventType, 19);
    assert.equal(decide(stateWith(visitor({ timeGroup: business })), '1234', gate, NOON).eventType, 18);
  });
  it('16 at a keypad outside the visitor’s access profile', () => {
    assert.equal(decide(stateWith(visitor({ accessProfile: gateOnly })), '1234', building).eventType, 16);
    assert.equal(decide(stateWith(visitor({ accessProfile: gateOnly })), '1234', gate).eventType, 18);
  });
  it('24 for every entry while the keypad is locked out, even a valid code', () => {
    assert.equal(
      decide(stateWith(visitor()), '1234', gate, NOON, { failures: [], lockedUntil: NOON + 1 }).eventType,
      24,
    );
  });
});

describe('loitering lockout', () => {
  it(`${LOCKOUT.failures} invalid codes within ${LOCKOUT.windowMs / 1000} s lock the keypad for ${LOCKOUT.durationMs / 1000} s`, () => {
    let l = noLockout;
    l = nextLockout(l, 15, 0);
    l = nextLockout(l, 15, 1000);
    assert.equal(l.lockedUntil, 0);
    l = nextLockout(l, 15, 2000);
    assert.equal(l.lockedUntil, 2000 + LOCKOUT.durationMs);
    assert.deepEqual(l.failures, []);
  });
  it('failures outside the window do not count; a grant clears them; other denials do not count', () => {
    let l = nextLockout(nextLockout(noLockout, 15, 0), 15, 1000);
    l = nextLockout(l, 15, LOCKOUT.windowMs + 1500);
    assert.equal(l.lockedUntil, 0);
    assert.deepEqual(nextLockout(l, 18, LOCKOUT.windowMs + 1600).failures, []);
    assert.equal(nextLockout(l, 17, 10), l);
  });
});

describe('doors and open hours', () => {
  it('a door opened within 10 minutes of a grant is 33, otherwise 35', () => {
    assert.equal(doorOpened(NOON - 60_000, NOON), 33);
    assert.equal(doorOpened(NOON - 11 * 60_000, NOON), 35);
    assert.equal(doorOpened(undefined, NOON), 35);
  });
  it('reports 8 when open hours begin and 9 when they end, nothing in between', () => {
    assert.deepEqual(openingChange(null, 'America/Denver', NOON), { isOpen: true, eventType: 8 });
    assert.deepEqual(openingChange(true, 'America/Denver', NOON), { isOpen: true, eventType: null });
    assert.deepEqual(openingChange(true, 'America/Denver', NIGHT), { isOpen: false, eventType: 9 });
  });
});

describe('remote commands', () => {
  it('reports emergency (31) and lockdown (32) with data.enabled, and remembers them', () => {
    const on = { id: 'c1', sequence: 1, type: 'lockdown.set', payload: { enabled: true } };
    assert.deepEqual(
      commandReports(on).map((r) => [r.eventType, r.data.enabled]),
      [[32, true]],
    );
    const state = applyCommand(emptyState(), on);
    assert.deepEqual([state.lockdown, state.emergency], [true, false]);
    const off = applyCommand(state, { id: 'c2', sequence: 2, type: 'lockdown.set', payload: { enabled: false } });
    assert.equal(off.lockdown, false);
    assert.deepEqual(
      commandReports({ id: 'c3', type: 'emergency.set', payload: { enabled: false } }).map((r) => [
        r.eventType,
        r.data.enabled,
      ]),
      [[31, false]],
    );
  });

  it('reports an action group run as a log message (29) and the gate relay’s state (37); an unknown action as nothing', () => {
    const run = {
      id: 'c4',
      type: 'action-group.run',
      payload: { actionGroupId: 7, name: 'Main Gate', action: 'hold' },
    };
    const reports = commandReports(run);
    assert.deepEqual(
      reports.map((r) => [r.eventType, r.details]),
      [
        [29, 'Main Gate: hold by remote command'],
        [37, 'Gate relay held open'],
      ],
    );
    assert.equal(reports[0]!.data.commandId, 'c4');
    assert.deepEqual(commandReports({ ...run, payload: { actionGroupId: 7, action: 'explode' } }), []);
    assert.deepEqual(commandReports({ id: 'c5', type: 'unit.upsert', payload: {} }), []);
  });
});

// The pure rules: the unit state table, visitor placement, the visitor switch, code form, time windows.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decideUnitAction,
  isWithinTimeWindows,
  localTime,
  normalizeAccessCode,
  placeVisitor,
  switchVisitor,
  visitorName,
  type UnitAction,
  type UnitStatus,
} from '../../src/access-control/rules.ts';

describe('the unit state table', () => {
  const table: [UnitStatus, UnitAction, string][] = [
    ['Vacant', 'disable', 'refused UNIT_VACANT'],
    ['Rented', 'disable', 'Delinquent changed'],
    ['Delinquent', 'disable', 'Delinquent unchanged'],
    ['Vacant', 'enable', 'refused UNIT_VACANT'],
    ['Rented', 'enable', 'Rented unchanged'],
    ['Delinquent', 'enable', 'Rented changed'],
    ['Vacant', 'vacate', 'Vacant unchanged'],
    ['Rented', 'vacate', 'Vacant changed'],
    ['Delinquent', 'vacate', 'Vacant changed'],
    ['Vacant', 'delete', 'deleted changed'],
    ['Rented', 'delete', 'refused UNIT_OCCUPIED'],
    ['Delinquent', 'delete', 'refused UNIT_OCCUPIED'],
  ];
  for (const [status, action, expected] of table) {
    it(`${action} on a ${status} unit: ${expected}`, () => {
      const d = decideUnitAction(status, action);
      const got = d.ok
        ? `${d.value.status ?? 'deleted'} ${d.value.changed ? 'changed' : 'unchanged'}`
        : `refused ${d.code}`;
      assert.equal(got, expected);
      if (!d.ok) assert.ok(d.reason.length > 20, 'a refusal explains itself');
    });
  }
});

describe('placing a visitor on a unit', () => {
  it('a tenant makes a vacant unit Rented', () =>
    assert.deepEqual(placeVisitor('Vacant', true), { ok: true, value: { status: 'Rented', changed: true } }));
  it('a visitor who is not a tenant is refused on a vacant unit', () => {
    const d = placeVisitor('Vacant', false);
    assert.equal(d.ok, false);
    assert.equal(!d.ok && d.code, 'UNIT_VACANT');
  });
  it('a rented or delinquent unit keeps its status', () => {
    assert.deepEqual(placeVisitor('Rented', false), { ok: true, value: { status: 'Rented', changed: false } });
    assert.deepEqual(placeVisitor('Delinquent', true), { ok: true, value: { status: 'Delinquent', changed: false } });
  });
});

describe('the visitor switch', () => {
  it('disable and enable change only what differs', () => {
    assert.deepEqual(switchVisitor(true, 'disable'), { isEnabled: false, changed: true });
    assert.deepEqual(switchVisitor(false, 'disable'), { isEnabled: false, changed: false });
    assert.deepEqual(switchVisitor(false, 'enable'), { isEnabled: true, changed: true });
    assert.deepEqual(switchVisitor(true, 'enable'), { isEnabled: true, changed: false });
  });
});

describe('access codes', () => {
  it('accepts 1–10 digits as a string (leading zeros kept) or a whole number', () => {
    assert.equal(normalizeAccessCode('0042'), '0042');
    assert.equal(normalizeAccessCode('1'), '1');
    assert.equal(normalizeAccessCode('1234567890'), '1234567890');
    assert.equal(normalizeAccessCode(42), '42');
    assert.equal(normalizeAccessCode(0), '0');
    assert.equal(normalizeAccessCode(9_999_999_999), '9999999999');
  });
  it('refuses empty, 11 digits, letters, signs, fractions and other types', () => {
    for (const bad of [
      '',
      '12345678901',
      '12a4',
      ' 1234',
      '-123',
      '+123',
      '１２３',
      1.5,
      -1,
      10_000_000_000,
      Number.NaN,
      null,
      true,
      [1234],
    ]) {
      assert.equal(normalizeAccessCode(bad), null, JSON.stringify(bad));
    }
  });
  it('names a visitor "First Last"', () => {
    assert.equal(visitorName('Ada', 'Lovelace'), 'Ada Lovelace');
    assert.equal(visitorName('Cher', ''), 'Cher');
  });
});

describe('time windows', () => {
  const business = [{ days: [1, 2, 3, 4, 5], start: '06:00', end: '22:00' }];
  it('reads local weekday and minute in the facility time zone', () => {
    // 2026-03-02 is a Monday; 13:30 UTC is 06:30 in Denver (MST, UTC−7).
    assert.deepEqual(localTime(new Date('2026-03-02T13:30:00Z'), 'America/Denver'), { day: 1, minute: 6 * 60 + 30 });
    assert.deepEqual(localTime(new Date('2026-03-02T03:00:00Z'), 'America/Denver'), { day: 0, minute: 20 * 60 });
  });
  it('is inside from the start minute, outside from the end minute', () => {
    assert.equal(isWithinTimeWindows(business, 'America/Denver', new Date('2026-03-02T13:00:00Z')), true); // Mon 06:00
    assert.equal(isWithinTimeWindows(business, 'America/Denver', new Date('2026-03-02T12:59:00Z')), false); // Mon 05:59
    assert.equal(isWithinTimeWindows(business, 'America/Denver', new Date('2026-03-03T05:00:00Z')), false); // Mon 22:00
    assert.equal(isWithinTimeWindows(business, 'America/Denver', new Date('2026-03-01T18:00:00Z')), false); // Sun 11:00
  });
  it('24 Hours covers every minute, "24:00" ending the day', () => {
    const all = [{ days: [0, 1, 2, 3, 4, 5, 6], start: '00:00', end: '24:00' }];
    for (const iso of ['2026-03-02T06:59:00Z', '2026-03-02T07:00:00Z', '2026-07-04T12:00:00Z'])
      assert.equal(isWithinTimeWindows(all, 'America/Denver', new Date(iso)), true);
  });
  it('an overnight window belongs to the day it starts', () => {
    const nights = [{ days: [5], start: '22:00', end: '02:00' }]; // Friday night
    assert.equal(isWithinTimeWindows(nights, 'UTC', new Date('2026-03-06T23:00:00Z')), true); // Fri 23:00
    assert.equal(isWithinTimeWindows(nights, 'UTC', new Date('2026-03-07T01:59:00Z')), true); // Sat 01:59
    assert.equal(isWithinTimeWindows(nights, 'UTC', new Date('2026-03-07T02:00:00Z')), false);
    assert.equal(isWithinTimeWindows(nights, 'UTC', new Date('2026-03-07T23:00:00Z')), false); // Sat 23:00
  });
});

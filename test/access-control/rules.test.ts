// The pure rules: the unit state table, visitor placement, the visitor switch, gate codes against a
// facility's rules, time windows.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AccessCodeRules } from '../../src/http/caller.ts';
import {
  accessCodeRuleText,
  decideUnitAction,
  isWithinTimeWindows,
  judgeAccessCode,
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
  it('keeps letters and digits as a string (leading zeros kept, letters in upper case), a whole number as its digits', () => {
    assert.equal(normalizeAccessCode('0042'), '0042');
    assert.equal(normalizeAccessCode('1'), '1');
    assert.equal(normalizeAccessCode('1234567890123456'), '1234567890123456');
    assert.equal(normalizeAccessCode('ab12Cd'), 'AB12CD');
    assert.equal(normalizeAccessCode(42), '42');
    assert.equal(normalizeAccessCode(0), '0');
    assert.equal(normalizeAccessCode(9_999_999_999), '9999999999');
  });
  it('refuses empty, signs, spaces, other scripts, fractions, unsafe numbers and other types', () => {
    for (const bad of [
      '',
      '12-4',
      ' 1234',
      '-123',
      '+123',
      '１２３',
      'ÄB12',
      1.5,
      -1,
      2 ** 53,
      Number.NaN,
      null,
      true,
      [1234],
    ]) {
      assert.equal(normalizeAccessCode(bad), null, JSON.stringify(bad));
    }
  });

  const DIGITS: AccessCodeRules = { characters: 'digits', minLength: 4, maxLength: 10 };
  const LETTERS: AccessCodeRules = { characters: 'alphanumeric', minLength: 6, maxLength: 8 };
  const judged = (value: unknown, rules: AccessCodeRules, current?: string) => {
    const decision = judgeAccessCode(value, rules, current);
    return decision.ok ? decision.value : `refused: ${decision.reason}`;
  };

  it('says the rules in words', () => {
    assert.equal(accessCodeRuleText(DIGITS), 'must be 4 to 10 digits');
    assert.equal(accessCodeRuleText(LETTERS), 'must be 6 to 8 letters or digits');
    assert.equal(accessCodeRuleText({ characters: 'digits', minLength: 6, maxLength: 6 }), 'must be 6 digits');
    assert.equal(accessCodeRuleText({ characters: 'digits', minLength: 1, maxLength: 1 }), 'must be 1 digit');
    assert.equal(
      accessCodeRuleText({ characters: 'alphanumeric', minLength: 1, maxLength: 1 }),
      'must be 1 letter or digit',
    );
  });

  it('holds a code to its facility’s length and characters, the bounds included', () => {
    assert.equal(judged('1234', DIGITS), '1234');
    assert.equal(judged('0123456789', DIGITS), '0123456789');
    assert.equal(judged(4321, DIGITS), '4321');
    assert.equal(judged('123', DIGITS), 'refused: must be 4 to 10 digits');
    assert.equal(judged(123, DIGITS), 'refused: must be 4 to 10 digits');
    assert.equal(judged('12345678901', DIGITS), 'refused: must be 4 to 10 digits');
    assert.equal(judged('12AB', DIGITS), 'refused: must be 4 to 10 digits');
    assert.equal(judged('ab12cd', LETTERS), 'AB12CD');
    assert.equal(judged('123456', LETTERS), '123456', 'digits alone are letters-or-digits too');
    assert.equal(judged('AB12C', LETTERS), 'refused: must be 6 to 8 letters or digits');
    assert.equal(judged('AB12CD345', LETTERS), 'refused: must be 6 to 8 letters or digits');
    assert.equal(judged('AB-12CD', LETTERS), 'refused: must be 6 to 8 letters or digits');
    assert.equal(judged(true, LETTERS), 'refused: must be 6 to 8 letters or digits');
  });

  it('accepts the visitor’s own code sent again, whatever the rules now say; any other code is judged', () => {
    assert.equal(judged('042', DIGITS, '042'), '042');
    assert.equal(judged('ab12', DIGITS, 'AB12'), 'AB12', 'the same code in another case');
    assert.equal(judged('043', DIGITS, '042'), 'refused: must be 4 to 10 digits');
    assert.equal(judged(42, DIGITS, '042'), 'refused: must be 4 to 10 digits', '42 is not 042');
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

// The rules of access control as pure functions over plain data: a unit's states and the actions
// allowed in each, where a visitor may be placed, a gate code against its facility's rules, and
// time-group windows. Routes and the simulated controller both decide through these; they are
// tested without I/O.
import type { AccessCodeRules } from '../http/caller.ts';

export const UNIT_STATUSES = ['Vacant', 'Rented', 'Delinquent'] as const;
export type UnitStatus = (typeof UNIT_STATUSES)[number];
export type UnitAction = 'disable' | 'enable' | 'vacate' | 'delete';

export type Decision<T> = { ok: true; value: T } | { ok: false; code: string; reason: string };

const allow = <T>(value: T): Decision<T> => ({ ok: true, value });
const refuse = <T>(code: string, reason: string): Decision<T> => ({ ok: false, code, reason });

export interface UnitOutcome {
  /** The unit's status after the action; `null` when the action deletes it. */
  status: UnitStatus | null;
  /** Whether anything changes (a repeated action is answered, changes nothing, sends no command). */
  changed: boolean;
}

/**
 * The unit state table:
 *
 * | action  | Vacant        | Rented          | Delinquent    |
 * |---------|---------------|-----------------|---------------|
 * | disable | refused       | → Delinquent    | unchanged     |
 * | enable  | refused       | unchanged       | → Rented      |
 * | vacate  | unchanged     | → Vacant        | → Vacant      |
 * | delete  | → deleted     | refused         | refused       |
 *
 * A vacant unit becomes Rented when a tenant is added to it (see placeVisitor).
 */
export function decideUnitAction(status: UnitStatus, action: UnitAction): Decision<UnitOutcome> {
  switch (action) {
    case 'disable':
      if (status === 'Vacant')
        return refuse('UNIT_VACANT', 'A vacant unit has no tenant to lock out; it can be disabled once it is Rented.');
      return allow({ status: 'Delinquent', changed: status !== 'Delinquent' });
    case 'enable':
      if (status === 'Vacant')
        return refuse(
          'UNIT_VACANT',
          'A vacant unit cannot be enabled; it becomes Rented when a tenant is added to it.',
        );
      return allow({ status: 'Rented', changed: status !== 'Rented' });
    case 'vacate':
      return allow({ status: 'Vacant', changed: status !== 'Vacant' });
    case 'delete':
      if (status !== 'Vacant')
        return refuse('UNIT_OCCUPIED', `The unit is ${status}; only a vacant unit can be deleted. Vacate it first.`);
      return allow({ status: null, changed: true });
  }
}

/**
 * Placing a visitor on a unit: a tenant makes a vacant unit Rented; a visitor who is not a tenant
 * needs a unit that has one (Rented or Delinquent) — a gate code for a unit nobody rents would
 * open the facility to no one's account.
 */
export function placeVisitor(unitStatus: UnitStatus, isTenant: boolean): Decision<UnitOutcome> {
  if (unitStatus !== 'Vacant') return allow({ status: unitStatus, changed: false });
  if (isTenant) return allow({ status: 'Rented', changed: true });
  return refuse(
    'UNIT_VACANT',
    'The unit is Vacant: its first visitor must be a tenant (isTenant true), which makes it Rented.',
  );
}

/** A visitor's own switch: disable locks them out, enable restores them; a repeat changes nothing. */
export function switchVisitor(
  isEnabled: boolean,
  action: 'disable' | 'enable',
): { isEnabled: boolean; changed: boolean } {
  const next = action === 'enable';
  return { isEnabled: next, changed: next !== isEnabled };
}

// ---- gate codes ----

/** Letters and digits: what a code is made of under any facility's rules (their lengths bound it). */
const CODE = /^[0-9A-Za-z]+$/;
const DIGITS = /^[0-9]+$/;

/**
 * A gate code as sent, in the form it is kept: letters and digits, the letters in upper case — a
 * keypad has one case, so "ab12" and "AB12" are one code (one digest, one uniqueness rule). A whole
 * number (legacy integrations send numbers; a number cannot carry leading zeros) is its digits.
 * Null when it is no code under any facility's rules (whose lengths judgeAccessCode checks).
 */
export function normalizeAccessCode(value: unknown): string | null {
  const text = typeof value === 'number' ? (Number.isSafeInteger(value) && value >= 0 ? String(value) : null) : value;
  return typeof text === 'string' && CODE.test(text) ? text.toUpperCase() : null;
}

/** The facility's rules in words, for a 400: "must be 4 to 10 digits", "must be 6 letters or digits". */
export function accessCodeRuleText(rules: AccessCodeRules): string {
  const one = rules.maxLength === 1;
  const length =
    rules.minLength === rules.maxLength ? `${rules.minLength}` : `${rules.minLength} to ${rules.maxLength}`;
  const characters =
    rules.characters === 'digits' ? (one ? 'digit' : 'digits') : one ? 'letter or digit' : 'letters or digits';
  return `must be ${length} ${characters}`;
}

/**
 * A code sent for a visitor, judged by the facility's rules: the code as kept (normalizeAccessCode),
 * or the rules in words. `current` is the visitor's code as it is: sent again, it is accepted whatever
 * the rules now say — it is not a new code (a PMS that sends its whole visitor on every update sends
 * it again), and the codes held before a change of the rules are not re-checked.
 */
export function judgeAccessCode(value: unknown, rules: AccessCodeRules, current?: string): Decision<string> {
  const code = normalizeAccessCode(value);
  if (code !== null && code === current) return allow(code);
  const follows =
    code !== null &&
    code.length >= rules.minLength &&
    code.length <= rules.maxLength &&
    (rules.characters === 'alphanumeric' || DIGITS.test(code));
  return follows ? allow(code) : refuse('ACCESS_CODE_RULES', accessCodeRuleText(rules));
}

/** extendedData (of a unit or a visitor) is any JSON object of at most this many bytes as JSON. */
export const EXTENDED_DATA_MAX_BYTES = 16 * 1024;

/** "First Last", or the first name alone. */
export const visitorName = (firstName: string, lastName: string) => (lastName ? `${firstName} ${lastName}` : firstName);

// ---- time groups ----

/** A weekly window of local time: days 0 (Sunday) … 6; "HH:MM" to "HH:MM" ("24:00" is midnight at the end of the day). */
export interface TimeWindow {
  days: number[];
  start: string;
  end: string;
}

const minuteOf = (hhmm: string) => {
  const [h, m] = hhmm.split(':').map(Number);
  return h! * 60 + m!;
};

const WEEKDAYS: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };
const formatters = new Map<string, Intl.DateTimeFormat>();

/** The weekday (0 = Sunday) and minute of the day at `at` in the time zone. */
export function localTime(at: Date, timeZone: string): { day: number; minute: number } {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, format);
  }
  let day = 0;
  let hour = 0;
  let minute = 0;
  for (const part of format.formatToParts(at)) {
    if (part.type === 'weekday') day = WEEKDAYS[part.value] ?? 0;
    else if (part.type === 'hour') hour = Number(part.value);
    else if (part.type === 'minute') minute = Number(part.value);
  }
  return { day, minute: hour * 60 + minute };
}

/**
 * Whether `at` falls in one of the windows, in the facility's time zone. A window whose end is
 * not after its start runs overnight: its part after midnight belongs to the day it started on.
 */
export function isWithinTimeWindows(windows: TimeWindow[], timeZone: string, at: Date): boolean {
  const { day, minute } = localTime(at, timeZone);
  const yesterday = (day + 6) % 7;
  return windows.some((w) => {
    const start = minuteOf(w.start);
    const end = minuteOf(w.end);
    if (end > start) return w.days.includes(day) && minute >= start && minute < end;
    return (w.days.includes(day) && minute >= start) || (w.days.includes(yesterday) && minute < end);
  });
}

// The rules of access control as pure functions over plain data: a unit's states and the actions
// allowed in each, where a visitor may be placed, gate-code form, and time-group windows.
// Routes and the simulated controller both decide through these; they are tested without I/O.

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

export const ACCESS_CODE_PATTERN = '^\\d{1,10}$';
/** The gate-code rule in words, for a 400 (instead of the schema's pattern). */
export const ACCESS_CODE_RULE = 'must be 1 to 10 digits, as a string of digits or a whole number';
export const ACCESS_CODE_MAX = 9_999_999_999;
const ACCESS_CODE = /^\d{1,10}$/;

/**
 * A gate code as sent: a string of 1–10 digits, or a whole number (legacy integrations send
 * numbers; a number cannot carry leading zeros). Returns the digits, or null when not a code.
 */
export function normalizeAccessCode(value: unknown): string | null {
  if (typeof value === 'number')
    return Number.isInteger(value) && value >= 0 && value <= ACCESS_CODE_MAX ? String(value) : null;
  if (typeof value === 'string') return ACCESS_CODE.test(value) ? value : null;
  return null;
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

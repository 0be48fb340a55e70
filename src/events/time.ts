// Time rules of the events face, as pure functions: strict ISO 8601 parsing (no silent roll-over
// of 30 February), the date-or-date-time query parameters, and UTC / facility-local rendering.

const DAY_MS = 86_400_000;
const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

function utcMs(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number | null {
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const value = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  const check = new Date(value);
  // Date.UTC rolls 30 February over into March: refuse what does not round-trip.
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return null;
  return value;
}

/**
 * An ISO 8601 date-time with an offset ("2026-03-01T09:15:00-07:00", "…Z"), to epoch
 * milliseconds (fractions beyond the millisecond are truncated). Null when it is not one.
 */
export function parseInstant(text: string): number | null {
  const m = INSTANT.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, z, sign, oh, om] = m;
  const ms = frac ? Number(frac.slice(0, 3).padEnd(3, '0')) : 0;
  const local = utcMs(Number(y), Number(mo), Number(d), Number(h), Number(mi), s ? Number(s) : 0, ms);
  if (local === null) return null;
  if (z) return local;
  const offsetHours = Number(oh);
  const offsetMinutes = Number(om);
  if (offsetHours > 23 || offsetMinutes > 59) return null;
  const offset = (offsetHours * 60 + offsetMinutes) * 60_000;
  return sign === '+' ? local - offset : local + offset;
}

/** A query date: an ISO 8601 date-time with offset, or a date (YYYY-MM-DD, midnight UTC). */
export function parseDateParam(text: string): number | null {
  const date = DATE_ONLY.exec(text);
  if (date) return utcMs(Number(date[1]), Number(date[2]), Number(date[3]));
  return parseInstant(text);
}

// Rendering is on the hot path of every page and export row: the date part is cached per day and
// the clock built from lookup tables, with no Date object per call (toISOString is the reference).
const DATE_CACHE_LIMIT = 100_000;
const datesByDay = new Map<number, string>();
const PAD2 = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const PAD3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));
const MAX_RENDERED = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** "YYYY-MM-DDTHH:MM:SS.mmm" of an instant read as UTC. */
function wallClock(ms: number): string {
  if (ms < 0 || ms > MAX_RENDERED || !Number.isInteger(ms)) return new Date(ms).toISOString().slice(0, -1);
  const day = Math.floor(ms / DAY_MS);
  let date = datesByDay.get(day);
  if (date === undefined) {
    date = new Date(day * DAY_MS).toISOString().slice(0, 10);
    if (datesByDay.size >= DATE_CACHE_LIMIT) datesByDay.clear();
    datesByDay.set(day, date);
  }
  let rest = ms - day * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${date}T${PAD2[hours]}:${PAD2[minutes]}:${PAD2[seconds]}.${PAD3[rest - seconds * 1000]}`;
}

/** UTC with milliseconds: "2026-01-15T16:15:02.123Z" (what toISOString gives). */
export const formatUtc = (ms: number): string => `${wallClock(ms)}Z`;

// Offsets of a zone, cached per UTC day: a day whose two ends have the same offset has it
// throughout (no zone changes its offset twice within a day); a day with a transition keeps the
// instant of the change, found to the minute by bisection. So a zone costs a few Intl calls per
// day of data, not one per event.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset', year: 'numeric' });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The offset by Intl (slow: tens of microseconds). */
function intlOffset(ms: number, timeZone: string): number {
  try {
    const name =
      formatterFor(timeZone)
        .formatToParts(ms)
        .find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
    const m = /^GMT([+-])(\d{2}):(\d{2})$/.exec(name);
    return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
  } catch {
    return 0; // an unknown zone renders as UTC rather than failing a page
  }
}

interface DayOffsets {
  start: number;
  /** The first instant of the day with the end offset (equal to the day's start when none). */
  change: number;
  end: number;
}

const dayCache = new Map<string, Map<number, DayOffsets>>();

function dayOffsets(day: number, timeZone: string): DayOffsets {
  let zone = dayCache.get(timeZone);
  if (!zone) {
    zone = new Map();
    dayCache.set(timeZone, zone);
  }
  let entry = zone.get(day);
  if (!entry) {
    const from = day * DAY_MS;
    const start = intlOffset(from, timeZone);
    const end = intlOffset(from + DAY_MS - 1, timeZone);
    let change = from;
    if (start !== end) {
      // Bisect to the minute: offsets change on whole minutes.
      let lo = from;
      let hi = from + DAY_MS - 1;
      while (hi - lo > 60_000) {
        const mid = lo + Math.floor((hi - lo) / 2);
        if (intlOffset(mid, timeZone) === start) lo = mid;
        else hi = mid;
      }
      change = Math.floor(hi / 60_000) * 60_000;
      if (intlOffset(change, timeZone) !== end) change += 60_000;
    }
    entry = { start, change, end };
    if (zone.size > 20_000) zone.clear();
    zone.set(day, entry);
  }
  return entry;
}

/** The zone's offset from UTC at that instant, in minutes (−420 for 2026-01-15 in America/Denver). */
export function offsetMinutes(ms: number, timeZone: string): number {
  const entry = dayOffsets(Math.floor(ms / DAY_MS), timeZone);
  return ms >= entry.change ? entry.end : entry.start;
}

const offsetTexts = new Map<number, string>();

/** "+05:45", "-07:00", "+00:00". */
function offsetText(offset: number): string {
  let text = offsetTexts.get(offset);
  if (text === undefined) {
    const abs = Math.abs(offset);
    text = `${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
    offsetTexts.set(offset, text);
  }
  return text;
}

/** The instant on the zone's wall clock, without an offset, milliseconds kept: "2026-01-15T09:15:02.123". */
export function formatWallClock(ms: number, timeZone: string): string {
  return wallClock(ms + offsetMinutes(ms, timeZone) * 60_000);
}

/** The instant in the zone's local time with its offset, milliseconds kept: "2026-01-15T09:15:02.123-07:00". */
export function formatLocal(ms: number, timeZone: string): string {
  const offset = offsetMinutes(ms, timeZone);
  return wallClock(ms + offset * 60_000) + offsetText(offset);
}

// Time rules of the events face, as pure functions: strict ISO 8601 parsing (no silent roll-over
// of 30 February), the date-or-date-time query parameters, and UTC / facility-local rendering.

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;
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

export const formatUtc = (ms: number): string => new Date(ms).toISOString();

// Offsets of a zone, cached per 15-minute slice of UTC time: every offset and every transition of
// the time zone database since 1970 falls on a quarter hour, so one Intl call serves a slice.
const SLICE_MS = 15 * 60_000;
const offsetCache = new Map<string, Map<number, number>>();
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset', year: 'numeric' });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The zone's offset from UTC at that instant, in minutes (−420 for 2026-01-15 in America/Denver). */
export function offsetMinutes(ms: number, timeZone: string): number {
  const slice = Math.floor(ms / SLICE_MS);
  let zone = offsetCache.get(timeZone);
  if (!zone) {
    zone = new Map();
    offsetCache.set(timeZone, zone);
  }
  const cached = zone.get(slice);
  if (cached !== undefined) return cached;
  let offset = 0;
  try {
    const name = formatterFor(timeZone).formatToParts(ms).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
    const m = /^GMT([+-])(\d{2}):(\d{2})$/.exec(name);
    if (m) offset = (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
  } catch {
    offset = 0; // an unknown zone renders as UTC rather than failing a page
  }
  if (zone.size > 50_000) zone.clear();
  zone.set(slice, offset);
  return offset;
}

/** The instant in the zone's local time with its offset, milliseconds kept: "2026-01-15T09:15:02.123-07:00". */
export function formatLocal(ms: number, timeZone: string): string {
  const offset = offsetMinutes(ms, timeZone);
  const local = new Date(ms + offset * 60_000).toISOString().slice(0, 23);
  if (offset === 0) return `${local}+00:00`;
  const abs = Math.abs(offset);
  return `${local}${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

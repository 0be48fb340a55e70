// CSV rendering of events, pure: the columns of SPEC.md §6.1, RFC 4180 (CRLF line ends; a field
// holding a comma, a quote or a line break is quoted, its quotes doubled), and the guard against
// spreadsheet formula injection. Written by hand for speed (about 3× csv-stringify's rate, which
// the export's throughput target needs); the tests check it against csv-stringify as the oracle.
import type { EntityId } from '../ids.ts';
import { EVENT_TYPE_NUMBERS, eventTypeInfo } from './catalogue.ts';
import { PLACE_COLUMNS, SUBJECT_COLUMNS, type EventRow } from './query.ts';
import { formatLocal, formatUtc } from './time.ts';

export const CSV_HEADER = [
  'id',
  'occurredAt',
  'occurredAtLocal',
  'receivedAt',
  'accountId',
  'facilityId',
  'facilityName',
  'eventType',
  'eventTypeName',
  'deviceId',
  'deviceName',
  'unitId',
  'unitNumber',
  'visitorId',
  'visitorName',
  'details',
] as const;

/**
 * A CSV row as the export query returns it (pg rowMode 'array', columns in CSV_SELECT order):
 * the event's fields, then the keys that continue the export after it.
 */
export type CsvRow = [
  id: string,
  occurredMs: number,
  receivedMs: number,
  accountId: EntityId,
  facilityId: EntityId,
  facilityName: string,
  timeZone: string,
  eventType: number,
  deviceId: string | null,
  deviceName: string | null,
  unitId: EntityId | null,
  unitNumber: string | null,
  visitorId: EntityId | null,
  visitorName: string | null,
  details: string | null,
  seq: number,
];

/** The select list that yields a CsvRow. */
export const CSV_SELECT = [
  'id',
  '(extract(epoch from occurred_at) * 1000)::int8',
  '(extract(epoch from received_at) * 1000)::int8',
  ...PLACE_COLUMNS,
  ...SUBJECT_COLUMNS,
  'details',
  'seq',
].join(', ');

export const CSV_ROW_OCCURRED = 1;
export const CSV_ROW_SEQ = 15;

/** The first characters that make a spreadsheet read a cell as a formula: the guard's one rule. */
export const FORMULA_START_CHARS = ['=', '+', '-', '@', '\t', '\r'] as const;
/** The characters that make RFC 4180 quote a field. */
export const QUOTE_TRIGGER_CHARS = ['"', ',', '\r', '\n'] as const;

const charClass = (chars: readonly string[]) =>
  chars.map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
const FORMULA_START = new RegExp(`^[${charClass(FORMULA_START_CHARS)}]`);
const NEEDS_QUOTES = new RegExp(`[${charClass(QUOTE_TRIGGER_CHARS)}]`);

/**
 * A cell a spreadsheet will not run: text that begins with =, +, -, @, tab or carriage return
 * gets a leading apostrophe (OWASP's recommendation), which spreadsheets show as text.
 */
export function guardCell(value: string | null): string {
  if (value === null) return '';
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/** A guarded text field, quoted when RFC 4180 requires it. */
export function csvField(value: string | null): string {
  const text = guardCell(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One CRLF-terminated line. Ids, times, numbers and catalogue names need neither guard nor quotes. */
export function csvLine(row: CsvRow): string {
  const occurred = row[1];
  return (
    `${row[0]},${formatUtc(occurred)},${formatLocal(occurred, row[6])},${formatUtc(row[2])},${row[3]},${row[4]},${csvField(row[5])},` +
    `${row[7]},${eventTypeInfo(row[7])?.name ?? ''},${csvField(row[8])},${csvField(row[9])},${row[10] ?? ''},${csvField(row[11])},` +
    `${row[12] ?? ''},${csvField(row[13])},${csvField(row[14])}\r\n`
  );
}

export const CSV_HEADER_LINE = `${CSV_HEADER.join(',')}\r\n`;

/** Rows as CSV text: one chunk of the stream. */
export function csvLines(rows: readonly CsvRow[]): string {
  let text = '';
  for (const row of rows) text += csvLine(row);
  return text;
}

/** A page's row (an EventRow object) as a CsvRow. */
export function csvRowOf(row: EventRow): CsvRow {
  return [
    row.id,
    row.occurred_ms,
    row.received_ms,
    row.account_id,
    row.facility_id,
    row.facility_name,
    row.time_zone,
    row.event_type,
    row.device_id,
    row.device_name,
    row.unit_id,
    row.unit_number,
    row.visitor_id,
    row.visitor_name,
    row.details,
    row.seq,
  ];
}

// ---- The same lines built by the database (the unpaged export) ----
// PostgreSQL writes each line, guard, quotes and local time included, and a chunk arrives as one text
// value: Node forwards text instead of parsing 16 fields per row. The SQL below is generated from the
// constants above (FORMULA_START_CHARS, QUOTE_TRIGGER_CHARS, CSV_HEADER's order, the catalogue), and
// the tests hold its output byte-identical to csvLine's on both databases.

const sqlChar = (c: string) => `chr(${c.charCodeAt(0)})`;

// The guard's first characters as code points: ascii() of the first character and integer comparisons
// cost half what comparing its text does (the export's database time, measured).
const FORMULA_START_CODES = FORMULA_START_CHARS.map((c) => c.charCodeAt(0)).join(', ');

/** SQL twin of guardCell for a text expression (null stays null); `emptyAsNull` also makes '' null. */
function sqlGuard(expr: string, emptyAsNull = false): string {
  const rest = emptyAsNull ? `when ${expr} <> '' then ${expr}` : `else ${expr}`;
  return `case when ascii(${expr}) in (${FORMULA_START_CODES}) then chr(39) || ${expr} ${rest} end`;
}

/** SQL twin of csvField for a text expression: guarded, quoted when needed, '' for null. */
export function sqlCsvField(expr: string): string {
  // The guard's apostrophe adds no quote trigger, so the raw text decides the quoting.
  const needsQuotes = QUOTE_TRIGGER_CHARS.map((c) => `strpos(${expr}, ${sqlChar(c)}) > 0`).join(' or ');
  return `coalesce(case when ${needsQuotes} then chr(34) || replace(${sqlGuard(expr)}, chr(34), chr(34) || chr(34)) || chr(34) else ${sqlGuard(expr)} end, '')`;
}

/** Event type names indexed by number (a text[] bound as a parameter; '' where none). */
export function eventTypeNameArray(): string[] {
  const max = Math.max(...EVENT_TYPE_NUMBERS);
  return Array.from({ length: max }, (_, i) => eventTypeInfo(i + 1)?.name ?? '');
}

/** Columns the inner (page) query selects for the SQL lines; the keys first. */
export const CSV_SQL_COLUMNS =
  "seq, occurred_at, date_trunc('milliseconds', occurred_at + interval '500 microseconds') as occ, " +
  "date_trunc('milliseconds', received_at + interval '500 microseconds') as rec, id, account_id, facility_id, " +
  'facility_name, time_zone, event_type, device_id, device_name, unit_id, unit_number, visitor_id, visitor_name, details';

// Times without to_char (slower): a timestamp's text output ("2026-01-15 09:15:02.123001", DateStyle
// ISO, the default) with one microsecond added to the millisecond-rounded instant always has six
// fraction digits, so its first 23 characters are the wall clock to the millisecond.
const wallClockSql = (timestamp: string) =>
  `replace(left((${timestamp} + interval '1 microsecond')::text, 23), ' ', 'T')`;

// Every zone's offset is a whole number of quarter hours (±14 h at most): its text is read from a
// list by that number — cheaper than writing an interval as text. Any other offset (a zone's local
// mean time, long before any event) falls back to the interval's text ("-07:00:00" → "-07:00").
const QUARTERS = 14 * 4;
const QUARTER_OFFSETS = Array.from({ length: 2 * QUARTERS + 1 }, (_, i) => {
  const minutes = Math.abs(i - QUARTERS) * 15;
  const hhmm = `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
  return `${i < QUARTERS ? '-' : '+'}${hhmm}`;
});
/** SQL: an interval (local time minus UTC) as the CSV writes an offset: "-07:00", "+05:45". */
export const offsetSql = (interval: string) => {
  const seconds = `date_part('epoch', ${interval})::int4`;
  const asText = `(${interval})::text`;
  return (
    `coalesce(case when ${seconds} % 900 = 0 then ('{${QUARTER_OFFSETS.join(',')}}'::text[])[${seconds} / 900 + ${QUARTERS + 1}] end, ` +
    `case when left(${asText}, 1) = '-' then left(${asText}, 6) else '+' || left(${asText}, 5) end)`
  );
};

/**
 * The CSV's cells in SQL, in CSV_HEADER's order, over the columns of CSV_SQL_COLUMNS (p) and the
 * offset (z). `whole`: each cell as its final text (guarded, quoted, '' for none), for lines built by
 * the database; otherwise the values COPY's CSV writer quotes itself (text guarded, '' as null).
 */
function csvCellsSql(namesParam: string, whole: boolean): string[] {
  const text = (expr: string) => (whole ? sqlCsvField(expr) : sqlGuard(expr, true));
  const number = (expr: string) => (whole ? `coalesce(${expr}::text, '')` : expr);
  const typeName = `(${namesParam}::text[])[p.event_type]`;
  const cells = [
    number('p.id'),
    `${wallClockSql('z.utc')} || 'Z'`,
    `${wallClockSql('z.local')} || z.off`,
    `${wallClockSql("p.rec at time zone 'UTC'")} || 'Z'`,
    number('p.account_id'),
    number('p.facility_id'),
    text('p.facility_name'),
    number('p.event_type'),
    whole ? `coalesce(${typeName}, '')` : `nullif(${typeName}, '')`,
    text('p.device_id'),
    text('p.device_name'),
    number('p.unit_id'),
    text('p.unit_number'),
    number('p.visitor_id'),
    text('p.visitor_name'),
    text('p.details'),
  ];
  if (cells.length !== CSV_HEADER.length) throw new Error('the SQL cells and CSV_HEADER disagree');
  return cells;
}

/**
 * The page's rows (pageSql selecting CSV_SQL_COLUMNS) with their local time and offset (z). The
 * `offset 0` keeps the planner from folding the lateral subquery into the select list, which would
 * compute each zone conversion again at every use of it (measured: half the export's database time).
 */
const withLocalTime = (pageSql: string) =>
  `(${pageSql}) p cross join lateral (select l.local, l.utc, ${offsetSql('l.local - l.utc')} as off ` +
  `from (select p.occ at time zone p.time_zone as local, p.occ at time zone 'UTC' as utc offset 0) l) z`;

/**
 * One chunk of the export as one row: its lines as one text (null when empty), how many, and the
 * last row's keys (occurred ms as the reads round it, seq) to continue after. `pageSql` is the
 * page query selecting CSV_SQL_COLUMNS; `namesParam` the placeholder bound to eventTypeNameArray().
 */
export function csvChunkSql(pageSql: string, namesParam: string, sort: 'asc' | 'desc'): string {
  const dir = sort === 'desc' ? 'desc' : 'asc';
  const back = sort === 'desc' ? 'asc' : 'desc';
  const lastOccurred = sort === 'desc' ? 'min' : 'max';
  return (
    `select string_agg(${csvCellsSql(namesParam, true).join(" || ',' || ")} || chr(13) || chr(10), '' order by p.occurred_at ${dir}, p.seq ${dir}) as text, count(*)::int4 as n, ` +
    `(extract(epoch from ${lastOccurred}(p.occurred_at)) * 1000)::int8 as last_ms, ` +
    `(array_agg(p.seq order by p.occurred_at ${back}, p.seq ${back}))[1]::int8 as last_seq ` +
    `from ${withLocalTime(pageSql)}`
  );
}

/**
 * One chunk of the export as `COPY … TO STDOUT (FORMAT csv)`: PostgreSQL writes every line, quoting
 * exactly the fields RFC 4180 needs (those holding a delimiter, a quote, CR or LF — QUOTE_TRIGGER_CHARS),
 * doubling quotes, and writing null as nothing; it ends lines with LF alone (csvRowsFromCopy makes
 * them CRLF). `pageSql` selects CSV_SQL_COLUMNS in the export's order; `names` is the literal of
 * eventTypeNameArray().
 */
export function csvCopySql(pageSql: string, names: string, sort: 'asc' | 'desc'): string {
  const dir = sort === 'desc' ? 'desc' : 'asc';
  return (
    `copy (select ${csvCellsSql(names, false).join(', ')} from ${withLocalTime(pageSql)} ` +
    `order by p.occurred_at ${dir}, p.seq ${dir}) to stdout (format csv)`
  );
}

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;

/**
 * COPY's CSV rows made the contract's: each row's closing LF preceded by CR (an LF inside a quoted
 * field is the field's own and stays as it is). Also says how many rows there were and where the
 * last one begins (its id and UTC time are its first cells: the export continues after it). Native
 * searches only: one per line end and one per quote character, none per byte.
 */
export function csvRowsFromCopy(data: Buffer): { text: Buffer; rows: number; lastRowStart: number } {
  const ends: number[] = [];
  let inQuotes = false;
  let nextQuote = data.indexOf(QUOTE);
  for (let lf = data.indexOf(LF); lf !== -1; lf = data.indexOf(LF, lf + 1)) {
    while (nextQuote !== -1 && nextQuote < lf) {
      inQuotes = !inQuotes;
      nextQuote = data.indexOf(QUOTE, nextQuote + 1);
    }
    if (!inQuotes) ends.push(lf);
  }
  if (data.length > 0 && ends.at(-1) !== data.length - 1) throw new Error('COPY data ends inside a row');
  const text = Buffer.allocUnsafe(data.length + ends.length);
  let from = 0;
  let to = 0;
  let lastRowStart = 0;
  for (const end of ends) {
    lastRowStart = to;
    to += data.copy(text, to, from, end);
    text[to++] = CR;
    text[to++] = LF;
    from = end + 1;
  }
  return { text, rows: ends.length, lastRowStart };
}

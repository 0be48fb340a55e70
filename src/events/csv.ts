// CSV rendering of events, pure: the columns of SPEC.md §6.1, RFC 4180 quoting by csv-stringify
// (CRLF, quotes doubled), and the guard against spreadsheet formula injection.
import { stringify } from 'csv-stringify/sync';
import { eventTypeInfo } from './catalogue.ts';
import type { EventRow } from './query.ts';
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

const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A cell a spreadsheet will not run: text that begins with =, +, -, @, tab or carriage return
 * gets a leading apostrophe (OWASP's recommendation), which spreadsheets show as text.
 */
export function guardCell(value: string | null): string {
  if (value === null) return '';
  return FORMULA_START.test(value) ? `'${value}` : value;
}

export function csvRecord(row: EventRow): string[] {
  return [
    row.id,
    formatUtc(row.occurred_ms),
    formatLocal(row.occurred_ms, row.time_zone),
    formatUtc(row.received_ms),
    row.account_id,
    row.facility_id,
    guardCell(row.facility_name),
    String(row.event_type),
    eventTypeInfo(row.event_type)?.name ?? '',
    guardCell(row.device_id),
    guardCell(row.device_name),
    guardCell(row.unit_id),
    guardCell(row.unit_number),
    guardCell(row.visitor_id),
    guardCell(row.visitor_name),
    guardCell(row.details),
  ];
}

const OPTIONS = { record_delimiter: 'windows' as const, eof: true };

/** The header line. */
export const csvHeaderLine = (): string => stringify([[...CSV_HEADER]], OPTIONS);

/** Rows as CSV text, one CRLF-terminated line each (a chunk of the stream). */
export const csvLines = (rows: readonly EventRow[]): string => (rows.length === 0 ? '' : stringify(rows.map(csvRecord), OPTIONS));

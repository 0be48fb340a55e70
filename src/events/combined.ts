// The combined-events item (SPEC §6.3), pure: the shape that existing PMS integrations read from
// GET /combinedevents/facilities/{facilityId}. The route reads its rows through the one query
// builder (query.ts) with the filter that filters.ts maps its parameters onto; this file says which
// columns it selects and how a row becomes an item: toCombinedEvent is the readable definition, and
// CombinedItemsWriter writes the same JSON straight from the rows, into one buffer, row by row as
// the database sends them (the tests hold the two equal).
import type { EntityId } from '../ids.ts';
import { EVENT_TYPES, eventTypeInfo } from './catalogue.ts';
import { SUBJECT_COLUMNS } from './query.ts';
import { formatUtc, formatWallClock } from './time.ts';

/** The category every item and type of this route carries: this service's events all come from gateway controllers. */
export const GATEWAY_CONTROLLER_CATEGORY = 'Gateway Controller Event';

/** The select list of a combined item: only what the item shows (no data, no codeEntered, no seq). */
export const COMBINED_COLUMNS = [
  'id',
  'facility_id',
  'facility_name',
  'time_zone',
  'event_type',
  '(extract(epoch from occurred_at) * 1000)::int8 as occurred_ms',
  ...SUBJECT_COLUMNS,
  'details',
].join(', ');

/** A row as COMBINED_COLUMNS selects it. */
export interface CombinedEventRow {
  id: string;
  facility_id: EntityId;
  facility_name: string;
  time_zone: string;
  event_type: number;
  occurred_ms: number;
  device_id: string | null;
  device_name: string | null;
  unit_id: EntityId | null;
  unit_number: string | null;
  visitor_id: EntityId | null;
  visitor_name: string | null;
  details: string | null;
}

export interface CombinedEvent {
  id: string;
  facilityId: EntityId;
  facilityName: string;
  deviceId: string | null;
  deviceName: string | null;
  eventCategory: typeof GATEWAY_CONTROLLER_CATEGORY;
  /** The type's name (on /gatewayevents, eventType is the number). */
  eventType: string;
  eventTypeEnum: number;
  eventDetails: string | null;
  /** The facility's wall clock, ISO 8601 without an offset. */
  createdOn: string;
  /** UTC, ISO 8601 with Z. */
  createdUtc: string;
  unitId: EntityId | null;
  /** The unit's number. */
  unitName: string | null;
  visitorId: EntityId | null;
  visitorName: string | null;
}

const typeName = (eventType: number) => eventTypeInfo(eventType)?.name ?? `Event type ${eventType}`;

/** The readable definition of an item. */
export function toCombinedEvent(row: CombinedEventRow): CombinedEvent {
  return {
    id: row.id,
    facilityId: row.facility_id,
    facilityName: row.facility_name,
    deviceId: row.device_id,
    deviceName: row.device_name,
    eventCategory: GATEWAY_CONTROLLER_CATEGORY,
    eventType: typeName(row.event_type),
    eventTypeEnum: row.event_type,
    eventDetails: row.details,
    createdOn: formatWallClock(row.occurred_ms, row.time_zone),
    createdUtc: formatUtc(row.occurred_ms),
    unitId: row.unit_id,
    unitName: row.unit_number,
    visitorId: row.visitor_id,
    visitorName: row.visitor_name,
  };
}

// ---- the same JSON, written straight from the rows (render.ts does this for /gatewayevents) ----

// Text that JSON.stringify would only wrap in quotes (no quote, backslash, control character or
// surrogate): most of what a page holds. The rest goes through JSON.stringify.
const PLAIN_TEXT = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;
const text = (value: string | null | undefined): string =>
  value == null ? 'null' : PLAIN_TEXT.test(value) ? `"${value}"` : JSON.stringify(value);

// Per event type: `"eventCategory":"Gateway Controller Event","eventType":"…","eventTypeEnum":18`.
const typeFragments = new Map<number, string>();
function typeFragment(eventType: number): string {
  let fragment = typeFragments.get(eventType);
  if (fragment === undefined) {
    fragment = `"eventCategory":"${GATEWAY_CONTROLLER_CATEGORY}","eventType":${JSON.stringify(typeName(eventType))},"eventTypeEnum":${eventType}`;
    typeFragments.set(eventType, fragment);
  }
  return fragment;
}

/** One item as JSON text. */
export function combinedEventJson(row: CombinedEventRow): string {
  return (
    `{"id":"${row.id}","facilityId":${row.facility_id},"facilityName":${text(row.facility_name)},` +
    `"deviceId":${text(row.device_id)},"deviceName":${text(row.device_name)},${typeFragment(row.event_type)},` +
    `"eventDetails":${text(row.details)},"createdOn":"${formatWallClock(row.occurred_ms, row.time_zone)}",` +
    `"createdUtc":"${formatUtc(row.occurred_ms)}","unitId":${row.unit_id ?? 'null'},"unitName":${text(row.unit_number)},` +
    `"visitorId":${row.visitor_id ?? 'null'},"visitorName":${text(row.visitor_name)}}`
  );
}

export interface CombinedMetadata {
  totalResults: number;
  pageSize: number;
  pageNumber: number;
  totalPages: number;
}

/**
 * The items of an answer, written as UTF-8 into one growing buffer as each row arrives (the route
 * renders while the database is still sending the rest: no array of rows, no string of the whole
 * page to flatten and encode again); `answer` wraps them as the array or the page.
 */
export class CombinedItemsWriter {
  private buffer: Buffer;
  private length = 0;
  count = 0;

  constructor(expectedRows = 100) {
    this.buffer = Buffer.allocUnsafe(Math.max(1024, expectedRows * 480));
  }

  add(row: CombinedEventRow): void {
    const json = (this.count === 0 ? '' : ',') + combinedEventJson(row);
    // At most 3 bytes of UTF-8 per UTF-16 unit.
    if (this.length + json.length * 3 > this.buffer.length) {
      const bigger = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + json.length * 3));
      this.buffer.copy(bigger, 0, 0, this.length);
      this.buffer = bigger;
    }
    this.length += this.buffer.write(json, this.length, 'utf8');
    this.count++;
  }

  /** `[…]` (hideMetadata=true), or `{"metadata": {totalResults, pageSize, pageNumber, totalPages}, "items": […]}`. */
  answer(metadata: CombinedMetadata | null): Buffer {
    const items = this.buffer.subarray(0, this.length);
    if (metadata === null) return Buffer.concat([OPEN_ARRAY, items, CLOSE_ARRAY]);
    return Buffer.concat([Buffer.from(`{"metadata":${JSON.stringify(metadata)},"items":[`), items, CLOSE_PAGE]);
  }
}

const OPEN_ARRAY = Buffer.from('[');
const CLOSE_ARRAY = Buffer.from(']');
const CLOSE_PAGE = Buffer.from(']}');

/** Rows as the answer's JSON text (what the route sends, for rows at hand). */
export function combinedAnswerJson(rows: readonly CombinedEventRow[], metadata: CombinedMetadata | null): string {
  const writer = new CombinedItemsWriter(rows.length);
  for (const row of rows) writer.add(row);
  return writer.answer(metadata).toString('utf8');
}

/** GET /combinedevents/types: the one catalogue, in this route's words. */
export const COMBINED_EVENT_TYPES = Object.freeze(
  EVENT_TYPES.map((entry) =>
    Object.freeze({
      name: entry.name,
      eventTypeEnum: entry.eventType,
      eventCategoryName: GATEWAY_CONTROLLER_CATEGORY,
      description: entry.description,
    }),
  ),
);

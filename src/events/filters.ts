// Query parameters → an EventFilter, pure. Every fault is collected and raised together (400 with
// each bad parameter named); nothing from the query string reaches SQL except as a bound value of
// a checked type.
import { validationFailed, type FieldError } from '../errors.ts';
import { isEventType } from './catalogue.ts';
import { MAX_FILTER_VALUES } from './limits.ts';
import type { EventFilter, EventScope, SortOrder } from './query.ts';
import { parseDateParam } from './time.ts';
import { type EntityId, parseEntityId } from '../ids.ts';

export interface FilterParams {
  eventTypes?: string[];
  facilityIds?: string[];
  unitIds?: string[];
  visitorIds?: string[];
  startDate?: string;
  endDate?: string;
  sort?: SortOrder;
}

/** "1,3" and ["1", "3"] (repeated) alike; empty items are ignored. */
export function splitList(values: readonly string[] | undefined): string[] | null {
  if (values === undefined) return null;
  return values
    .flatMap((value) => value.split(','))
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

function listFault(faults: FieldError[], path: string, items: string[]): boolean {
  if (items.length > MAX_FILTER_VALUES) {
    faults.push({ path, message: `must list at most ${MAX_FILTER_VALUES} values` });
    return true;
  }
  return false;
}

export function parseEventTypes(
  values: readonly string[] | undefined,
  faults: FieldError[],
  path = 'eventTypes',
  typesRoute = '/gatewayevents/types',
): number[] | null {
  const items = splitList(values);
  if (items === null || items.length === 0 || listFault(faults, path, items)) return null;
  const types: number[] = [];
  for (const item of items) {
    const value = /^\d{1,3}$/.test(item) ? Number(item) : NaN;
    if (!isEventType(value)) {
      faults.push({
        path,
        message: `${JSON.stringify(item.slice(0, 40))} is not an event type (see GET ${typesRoute})`,
      });
      return null;
    }
    if (!types.includes(value)) types.push(value);
  }
  return types;
}

/** A list of facility, unit or visitor ids: positive integers, comma-separated or repeated. */
export function parseIdList(
  values: readonly string[] | undefined,
  faults: FieldError[],
  path: string,
  what: 'facility' | 'unit' | 'visitor',
): EntityId[] | null {
  const items = splitList(values);
  if (items === null || items.length === 0 || listFault(faults, path, items)) return null;
  const ids = items.map(parseEntityId);
  const bad = items.find((_, i) => ids[i] === null);
  if (bad !== undefined) {
    faults.push({ path, message: `${JSON.stringify(bad.slice(0, 40))} is not a ${what} id (a positive integer)` });
    return null;
  }
  return [...new Set(ids as EntityId[])];
}

export const parseFacilityIds = (values: readonly string[] | undefined, faults: FieldError[]) =>
  parseIdList(values, faults, 'facilityIds', 'facility');

const DATE_HINT =
  'must be an ISO 8601 date-time with an offset (2026-03-01T00:00:00Z) or a date (2026-03-01, midnight UTC)';

export function parseDates(
  startText: string | undefined,
  endText: string | undefined,
  faults: FieldError[],
): { start: number | null; end: number | null } {
  const parse = (text: string | undefined, path: string): number | null => {
    if (text === undefined || text === '') return null;
    const value = parseDateParam(text);
    if (value === null) faults.push({ path, message: DATE_HINT });
    return value;
  };
  const start = parse(startText, 'startDate');
  const end = parse(endText, 'endDate');
  if (start !== null && end !== null && end <= start)
    faults.push({ path: 'endDate', message: 'must be after startDate (startDate is inclusive, endDate exclusive)' });
  return { start, end };
}

/** The parts of a v3 or v1.0 filter, each fault pushed to `faults`. */
function readFilter(kind: EventScope['kind'], params: FilterParams, faults: FieldError[]) {
  const eventTypes = parseEventTypes(params.eventTypes, faults);
  const facilityIds = kind === 'account' ? parseFacilityIds(params.facilityIds, faults) : null;
  const unitIds = parseIdList(params.unitIds, faults, 'unitIds', 'unit');
  const visitorIds = parseIdList(params.visitorIds, faults, 'visitorIds', 'visitor');
  const { start, end } = parseDates(params.startDate, params.endDate, faults);
  return { facilityIds, eventTypes, unitIds, visitorIds, start, end, sort: params.sort ?? 'desc' };
}

/** The filter of a v3 or v1.0 request; throws a 400 naming every bad parameter. */
export function parseFilter(scope: EventScope, params: FilterParams): EventFilter {
  const faults: FieldError[] = [];
  const filter = readFilter(scope.kind, params, faults);
  if (faults.length > 0) throw validationFailed(faults);
  return { scope, ...filter };
}

/** The legacy 2.0 filter's parts, each fault pushed to `faults`. */
function readLegacyFilter(params: LegacyParams, faults: FieldError[]) {
  const eventTypes = parseEventTypes(params.eventTypes, faults);
  const start = params.minDate !== undefined ? params.minDate * 1000 : null;
  const end = params.maxDate !== undefined ? params.maxDate * 1000 : null;
  if (start !== null && end !== null && end <= start)
    faults.push({ path: 'maxDate', message: 'must be after minDate' });
  return { eventTypes, start, end };
}

interface LegacyParams {
  eventTypes?: string[];
  minDate?: number;
  maxDate?: number;
}

/** The legacy 2.0 filter: Unix-second minDate (inclusive) and maxDate (exclusive), newest first. */
export function parseLegacyFilter(scope: EventScope, params: LegacyParams): EventFilter {
  const faults: FieldError[] = [];
  const { eventTypes, start, end } = readLegacyFilter(params, faults);
  if (faults.length > 0) throw validationFailed(faults);
  return { scope, facilityIds: null, eventTypes, unitIds: null, visitorIds: null, start, end, sort: 'desc' };
}

/** What the combined-events route (SPEC §6.3) is asked: its own parameter names, as the schema passes them. */
export interface CombinedParams {
  gtq?: string[];
  /** Edge-router and IoT device (SmartLock) event types: device families this service does not have. */
  etq?: string[];
  itq?: string[];
  uq?: string;
  vq?: string;
  minDate?: number;
  maxDate?: number;
}

/**
 * Which gateway-controller event types a combined-events query selects (SPEC §6.3), from gtq's types
 * (null: gtq names none) and whether etq or itq name any type. The incumbent's route reads three
 * device families, each by its own list; this service has only gateway controllers, so:
 * - gtq names types → those types, whatever etq and itq say (theirs select no event here);
 * - only etq or itq name types → none ([]): a SmartLock offline/online report must not count the
 *   gateway's door devices;
 * - no list names a type → every type (null).
 * A list that names no type (absent, or `etq=`) is no filter, as an empty gtq is.
 */
export function combinedEventTypes(gatewayTypes: number[] | null, otherFamiliesNamed: boolean): number[] | null {
  if (gatewayTypes !== null) return gatewayTypes;
  return otherFamiliesNamed ? [] : null;
}

/** Whether etq or itq name a type (their values are another family's types: not checked, only counted). */
const namesOtherFamilies = (params: CombinedParams) =>
  [params.etq, params.itq].some((values) => (splitList(values)?.length ?? 0) > 0);

/** The window the combined-events route reads when minDate is absent: the 12 hours before maxDate. */
export const COMBINED_DEFAULT_WINDOW_MS = 12 * 3_600_000;

/** A single unit or visitor id: empty (or absent) means no filter. */
function parseOptionalId(
  text: string | undefined,
  faults: FieldError[],
  path: string,
  what: 'unit' | 'visitor',
): EntityId[] | null {
  const trimmed = text?.trim() ?? '';
  if (trimmed === '') return null;
  const id = parseEntityId(trimmed);
  if (id === null) {
    faults.push({ path, message: `${JSON.stringify(trimmed.slice(0, 40))} is not a ${what} id (a positive integer)` });
    return null;
  }
  return [id];
}

/**
 * The combined-events parameters mapped onto the one EventFilter (so the one query builder serves
 * that route too): gtq → eventTypes, uq → unitIds, vq → visitorIds, minDate (inclusive) and maxDate
 * (exclusive) in Unix seconds → start and end. maxDate defaults to `now`, minDate to 12 hours before
 * maxDate. Newest first. etq and itq (edge-router and IoT device types) select nothing here: this
 * service has no such devices (combinedEventTypes). Throws a 400 naming every bad parameter.
 */
export function parseCombinedFilter(scope: EventScope, params: CombinedParams, now: number): EventFilter {
  const faults: FieldError[] = [];
  const { eventTypes, unitIds, visitorIds } = readCombinedFilter(params, faults);
  if (faults.length > 0) throw validationFailed(faults);
  const end = params.maxDate !== undefined ? params.maxDate * 1000 : now;
  const start = params.minDate !== undefined ? params.minDate * 1000 : end - COMBINED_DEFAULT_WINDOW_MS;
  return { scope, facilityIds: null, eventTypes, unitIds, visitorIds, start, end, sort: 'desc' };
}

function readCombinedFilter(params: CombinedParams, faults: FieldError[]) {
  const eventTypes = combinedEventTypes(
    parseEventTypes(params.gtq, faults, 'gtq', '/combinedevents/types'),
    namesOtherFamilies(params),
  );
  const unitIds = parseOptionalId(params.uq, faults, 'uq', 'unit');
  const visitorIds = parseOptionalId(params.vq, faults, 'vq', 'visitor');
  if (params.minDate !== undefined && params.maxDate !== undefined && params.minDate > params.maxDate) {
    faults.push({ path: 'minDate', message: 'must not be after maxDate' });
    faults.push({ path: 'maxDate', message: 'must not be before minDate' });
  }
  return { eventTypes, unitIds, visitorIds };
}

// ---- the same rules, beside the schema ----
// validation.ts runs a route's query rules together with its schema, so that one 400 names every
// bad parameter (`sort=up&startDate=yesterday`: both). The query is then as the schema left it:
// a parameter that failed the schema may hold anything, and is left to the schema's fault.

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
const texts = (value: unknown) =>
  Array.isArray(value) && value.every((item) => typeof item === 'string') ? (value as string[]) : undefined;
const seconds = (value: unknown) => (Number.isSafeInteger(value) ? (value as number) : undefined);
const fields = (query: unknown) =>
  query !== null && typeof query === 'object' ? (query as Record<string, unknown>) : {};

/** The faults of a v3 or v1.0 query beyond its schema's, pushed to `faults`. */
export function filterFaults(kind: EventScope['kind'], query: unknown, faults: FieldError[]): void {
  const q = fields(query);
  readFilter(
    kind,
    {
      eventTypes: texts(q.eventTypes),
      facilityIds: texts(q.facilityIds),
      unitIds: texts(q.unitIds),
      visitorIds: texts(q.visitorIds),
      startDate: text(q.startDate),
      endDate: text(q.endDate),
    },
    faults,
  );
}

/** The faults of a legacy 2.0 query beyond its schema's. */
export function legacyFilterFaults(query: unknown, faults: FieldError[]): void {
  const q = fields(query);
  readLegacyFilter(
    { eventTypes: texts(q.eventTypes), minDate: seconds(q.minDate), maxDate: seconds(q.maxDate) },
    faults,
  );
}

/** The faults of a combined-events query beyond its schema's. */
export function combinedFilterFaults(query: unknown, faults: FieldError[]): void {
  const q = fields(query);
  readCombinedFilter(
    { gtq: texts(q.gtq), uq: text(q.uq), vq: text(q.vq), minDate: seconds(q.minDate), maxDate: seconds(q.maxDate) },
    faults,
  );
}

// The read side's rules, as pure functions: a filter becomes SQL text with bound values (never
// spliced), and a row becomes a GatewayEvent. Tested without a database; the benchmark runs the
// very same SQL directly to measure the route's overhead.
import { HORIZON_SQL } from '../db/horizon.ts';
import type { EntityId } from '../ids.ts';
import type { Selectable } from 'kysely';
import { eventTypeInfo } from './catalogue.ts';
import type { GatewayEventsTable } from './tables.ts';
import { formatLocal, formatUtc } from './time.ts';

/** The route's scope. A facility scope names its account too: a reader waits for its account's events (horizon). */
export type EventScope =
  | { kind: 'account'; accountId: EntityId }
  | { kind: 'facility'; facilityId: EntityId; accountId: EntityId };
export type SortOrder = 'asc' | 'desc';

export interface EventFilter {
  scope: EventScope;
  /** Account route: only these facilities (another account's simply match nothing). */
  facilityIds: EntityId[] | null;
  eventTypes: number[] | null;
  /** Only events that name one of these units / visitors (the ids the controller reported). */
  unitIds: EntityId[] | null;
  visitorIds: EntityId[] | null;
  /** Epoch ms, inclusive. */
  start: number | null;
  /** Epoch ms, exclusive. */
  end: number | null;
  sort: SortOrder;
}

/** What a walk's step reads: the phase (lo < txid <= hi), the position, the retention cutoff. */
export interface Window {
  /** Epoch ms: events before it are outside the retention window and never returned. */
  cutoff: number;
  /** Transaction-id bounds of the phase: the events stored by transactions lo < txid <= hi (horizon.ts). */
  lo: number;
  hi: number;
  after?: { occurredAt: number; seq: number } | null;
}

export interface SqlText {
  text: string;
  values: unknown[];
}

/** The query's identity for the cursor fingerprint: everything that decides the set and its order. */
export function filterIdentity(filter: EventFilter): Record<string, unknown> {
  return {
    scope: filter.scope.kind === 'account' ? `a:${filter.scope.accountId}` : `f:${filter.scope.facilityId}`,
    facilityIds: filter.facilityIds ? [...filter.facilityIds].sort((a, b) => a - b) : null,
    eventTypes: filter.eventTypes ? [...filter.eventTypes].sort((a, b) => a - b) : null,
    unitIds: filter.unitIds ? [...filter.unitIds].sort((a, b) => a - b) : null,
    visitorIds: filter.visitorIds ? [...filter.visitorIds].sort((a, b) => a - b) : null,
    start: filter.start,
    end: filter.end,
    sort: filter.sort,
  };
}

function whereClause(filter: EventFilter, window: Window, values: unknown[]): string {
  const bind = (value: unknown) => `$${values.push(value)}`;
  // A unit or visitor filter is served by the partial indexes on (unit_id | visitor_id, occurred_at,
  // seq) (migration 0003). One id is an equality: the index then yields the rows already in
  // (occurred_at, seq) order and a page stops after its rows. Several ids are `= any(…)`, with
  // `is not null` spelled out: the planner proves a partial index's predicate from the query's own
  // conditions, and cannot prove it from `= any($1)` in a generic plan (the export's named statement).
  const idCondition = (column: 'unit_id' | 'visitor_id', ids: EntityId[]) =>
    ids.length === 1
      ? `${column} = ${bind(ids[0])}::int8`
      : `${column} = any(${bind(ids)}::int8[]) and ${column} is not null`;
  const conditions = [`account_id = ${bind(filter.scope.accountId)}::int8`];
  if (filter.scope.kind === 'facility') conditions.push(`facility_id = ${bind(filter.scope.facilityId)}::int8`);
  if (filter.facilityIds) conditions.push(`facility_id = any(${bind(filter.facilityIds)}::int8[])`);
  if (filter.eventTypes) conditions.push(`event_type = any(${bind(filter.eventTypes)}::int2[])`);
  if (filter.unitIds) conditions.push(idCondition('unit_id', filter.unitIds));
  if (filter.visitorIds) conditions.push(idCondition('visitor_id', filter.visitorIds));
  const from = Math.max(filter.start ?? window.cutoff, window.cutoff);
  conditions.push(`occurred_at >= ${bind(formatUtc(from))}::timestamptz`);
  if (filter.end !== null) conditions.push(`occurred_at < ${bind(formatUtc(filter.end))}::timestamptz`);
  if (window.lo > 0) conditions.push(`txid > ${bind(window.lo)}::int8`);
  conditions.push(`txid <= ${bind(window.hi)}::int8`);
  if (window.after) {
    const op = filter.sort === 'desc' ? '<' : '>';
    conditions.push(
      `(occurred_at, seq) ${op} (${bind(formatUtc(window.after.occurredAt))}::timestamptz, ${bind(window.after.seq)}::int8)`,
    );
  }
  return conditions.join(' and ');
}

const EPOCH_MS = (column: string) => `(extract(epoch from ${column}) * 1000)::int8 as ${column.replace('_at', '_ms')}`;

/** Where and what: the columns that place an event (written once for the items and the CSV). */
export const PLACE_COLUMNS = ['account_id', 'facility_id', 'facility_name', 'time_zone', 'event_type'] as const;
/** Who and with what: the device, unit and visitor an event names. */
export const SUBJECT_COLUMNS = [
  'device_id',
  'device_name',
  'unit_id',
  'unit_number',
  'visitor_id',
  'visitor_name',
] as const;

/** Columns of a GatewayEvent item. */
export const ITEM_COLUMNS = [
  'seq',
  'id',
  ...PLACE_COLUMNS,
  EPOCH_MS('occurred_at'),
  EPOCH_MS('received_at'),
  ...SUBJECT_COLUMNS,
  'code_entered',
  'details',
  // As text: it goes into the response as it is, never parsed and serialized again.
  'data::text as data',
].join(', ');

export interface PageOptions {
  limit: number;
  offset?: number;
  columns?: string;
}

/** One page of the walk, in (occurredAt, seq) order. */
export function pageQuery(filter: EventFilter, window: Window, options: PageOptions): SqlText {
  const values: unknown[] = [];
  const where = whereClause(filter, window, values);
  const direction = filter.sort === 'desc' ? 'desc' : 'asc';
  let text = `select ${options.columns ?? ITEM_COLUMNS} from gateway_events where ${where} order by occurred_at ${direction}, seq ${direction} limit $${values.push(options.limit)}`;
  if (options.offset) text += ` offset $${values.push(options.offset)}`;
  return { text, values };
}

/**
 * Whether a row of the account's phase is one of the filter's: whereClause's conditions but the
 * phase's, in memory. The live streams of an account read the new rows once, together, and each
 * keeps its own (store.ts, tail.ts); the stream tests hold the two equal.
 */
export function rowMatches(filter: EventFilter, row: EventRow, cutoff: number): boolean {
  if (row.account_id !== filter.scope.accountId) return false;
  if (filter.scope.kind === 'facility' && row.facility_id !== filter.scope.facilityId) return false;
  if (filter.facilityIds && !filter.facilityIds.includes(row.facility_id)) return false;
  if (filter.eventTypes && !filter.eventTypes.includes(row.event_type)) return false;
  if (filter.unitIds && (row.unit_id === null || !filter.unitIds.includes(row.unit_id))) return false;
  if (filter.visitorIds && (row.visitor_id === null || !filter.visitorIds.includes(row.visitor_id))) return false;
  const occurred = Number(row.occurred_ms);
  if (occurred < Math.max(filter.start ?? cutoff, cutoff)) return false;
  return filter.end === null || occurred < filter.end;
}

/**
 * The rows an account's caught-up tails share (store.ts): every retained event of the account
 * stored by a transaction of lo < txid <= hi, in (occurredAt, seq) order, with its txid (each
 * tail keeps those above its own lo).
 */
export function accountPhaseQuery(accountId: EntityId, window: Omit<Window, 'after'>, limit: number): SqlText {
  const everything = everyEventOf({ kind: 'account', accountId });
  return pageQuery(everything, { ...window, after: null }, { limit, columns: `${ITEM_COLUMNS}, txid` });
}

/** The filter that keeps every event of the scope, oldest first. */
export function everyEventOf(scope: EventScope): EventFilter {
  return {
    scope,
    facilityIds: null,
    eventTypes: null,
    unitIds: null,
    visitorIds: null,
    start: null,
    end: null,
    sort: 'asc',
  };
}

/** A row of accountPhaseQuery: an item's columns and the transaction that stored it. */
export type PhaseRow = EventRow & { txid: number };

/**
 * How many events of the phase match; with `cap`, counting stops there (a route that answers at
 * most `cap` events needs no more, and a wide filter then costs `cap` index entries, not millions).
 */
export function countQuery(filter: EventFilter, window: Omit<Window, 'after'>, cap?: number): SqlText {
  const values: unknown[] = [];
  const where = whereClause(filter, { ...window, after: null }, values);
  if (cap === undefined) return { text: `select count(*)::int8 as n from gateway_events where ${where}`, values };
  return {
    text: `select count(*)::int8 as n from (select from gateway_events where ${where} limit $${values.push(cap)}) capped`,
    values,
  };
}

/** The planner's estimate of how many events of the phase match (EXPLAIN, nothing is read). */
export function estimateQuery(filter: EventFilter, window: Omit<Window, 'after'>): SqlText {
  const values: unknown[] = [];
  const where = whereClause(filter, { ...window, after: null }, values);
  return { text: `explain (format json) select from gateway_events where ${where}`, values };
}

/**
 * The horizon (src/db/horizon.ts) with `ahead`: the highest txid of the account's events committed
 * above it (null when none), which tells a reader whether to wait a moment (horizon.ts).
 */
export const horizonQuery = (accountId: EntityId): SqlText => ({
  text: `select h.hi, (select max(txid) from gateway_events where account_id = $1::int8 and txid > h.hi) as ahead
           from (${HORIZON_SQL}) as h`,
  values: [accountId],
});

/**
 * An event as the reads select it: the table's columns, with the two times as epoch milliseconds
 * and `data` as JSON text (code_entered and data only where the select list has them).
 */
export type EventRow = Omit<
  Selectable<GatewayEventsTable>,
  'gwc_event_id' | 'occurred_at' | 'received_at' | 'code_entered' | 'data'
> & {
  occurred_ms: number;
  received_ms: number;
  code_entered?: string | null;
  /** JSON text (jsonb's output), or null. */
  data?: string | null;
};

export interface GatewayEvent {
  id: string;
  accountId: EntityId;
  facilityId: EntityId;
  facilityName: string;
  eventType: number;
  eventTypeName: string;
  eventCategory: string;
  occurredAt: string;
  occurredAtLocal: string;
  receivedAt: string;
  deviceId: string | null;
  deviceName: string | null;
  unitId: EntityId | null;
  unitNumber: string | null;
  visitorId: EntityId | null;
  visitorName: string | null;
  codeEntered: string | null;
  details: string | null;
  data: Record<string, unknown> | null;
}

/** The readable definition of an item; render.ts writes the same JSON faster (tests hold them equal). */
export function toGatewayEvent(row: EventRow): GatewayEvent {
  const info = eventTypeInfo(row.event_type);
  return {
    id: row.id,
    accountId: row.account_id,
    facilityId: row.facility_id,
    facilityName: row.facility_name,
    eventType: row.event_type,
    eventTypeName: info?.name ?? `Event type ${row.event_type}`,
    eventCategory: info?.category ?? 'System',
    occurredAt: formatUtc(row.occurred_ms),
    occurredAtLocal: formatLocal(row.occurred_ms, row.time_zone),
    receivedAt: formatUtc(row.received_ms),
    deviceId: row.device_id,
    deviceName: row.device_name,
    unitId: row.unit_id,
    unitNumber: row.unit_number,
    visitorId: row.visitor_id,
    visitorName: row.visitor_name,
    codeEntered: row.code_entered ?? null,
    details: row.details,
    data: row.data ? (JSON.parse(row.data) as Record<string, unknown>) : null,
  };
}

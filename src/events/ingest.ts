// A controller's report, owned whole by the events face: each event judged on its own (judge.ts),
// the accepted ones stored by one statement — one multi-row insert (unnest), idempotent on the
// controller's event id per facility — with what other faces keep in step with them (parts of the
// same statement that the composition root hands in: access control acknowledges commands and keeps
// the facility's reported state), counted, committed before the controller hears "accepted", then
// announced.
//
// One statement, not a transaction of several: a statement is its own transaction, so the batch
// holds no connection between round trips, and — what readers wait for — its transaction id is
// open only while the database runs it. Readers bound what they read by the horizon below which
// every transaction has ended (horizon.ts): a transaction left open across four round trips on a
// busy server held every live stream and webhook lane of the database back by as long (issue 25).
//
// No lock is shared by an account's controllers (issue 12): batches of one account, of one facility
// even, are stored in parallel. Each row records the id of the transaction that stored it (column
// txid, migration 0006), and readers bound what they read by the horizon, so they never see a set
// that a later commit changes — what the account's lock used to give by putting the sequence in
// commit order. The unique key on (facility, event id) keeps each event stored once: a retry waits
// for the attempt in flight and finds its ids taken.
// Unit numbers and visitor names are looked up by the insert statement itself (a primary-key probe
// per id, at the event's facility: what is true when the event arrives is stored with it), which
// saved two statements per batch and a sixth of the CPU per event (docs/BENCHMARKS.md, issue 12
// item 2).
import { randomUUID } from 'node:crypto';
import { type RawBuilder, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import { judgeBatch, type AcceptedEvent, type IngestWarning, type Rejection } from './judge.ts';
import type { EventMetrics } from './metrics.ts';
import { monthsOf, type Partitions } from './partitions.ts';
import type { EventSignals } from './signals.ts';

export interface GatewayIdentity {
  accountId: EntityId;
  facilityId: EntityId;
}

/**
 * A batch as it commits, as the other faces' parts of its statement see it: what they keep in step
 * with the events commits with them, or not at all.
 */
export interface StoredBatch {
  facilityId: EntityId;
  receivedAt: number;
  /**
   * Every accepted event, repeats of earlier batches included (applying a repeat must change nothing;
   * acknowledging a command twice changes nothing).
   */
  events: readonly AcceptedEvent[];
}

/**
 * A part of a batch's one statement: a common table expression `name as (body)`, which may lock,
 * insert or update the rows its face owns. Names are the face's own (prefixed by it), unique in the
 * statement; a part may name the parts before it of its face, and `STORED`.
 *
 * A part with `warn` has its rows returned by the statement (as JSON objects, one column named after
 * it): once committed, `warn` turns them into warnings for the controller's answer. Parts without it
 * cost the answer nothing.
 */
export interface BatchStatementPart {
  name: string;
  body: RawBuilder<unknown>;
  warn?: (rows: readonly unknown[]) => IngestWarning[];
}

/**
 * The relation a part selects from to run after the batch's events are stored (one row: how many
 * were). Concurrent batches of one facility — a retry in flight, a controller uploading from several
 * threads — then take their rows in one order, the events' ids first, then what the parts take: they
 * wait for each other, never in a cycle (a deadlock, which PostgreSQL breaks by failing one valid batch).
 */
export const STORED = sql.raw('batch_stored');

/** What another face keeps in step with a controller's batch: the parts it adds to the batch's statement (none: nothing to write). */
export type BatchUpkeep = (batch: StoredBatch) => readonly BatchStatementPart[];

/** What the controller hears back (the route's 200). */
export interface IngestAnswer {
  accepted: number;
  duplicates: number;
  rejected: Rejection[];
  warnings: IngestWarning[];
}

export interface IngestDeps {
  db: Db;
  /** Runs the batch's statement planned once per connection (Database.prepared). */
  prepared: Database['prepared'];
  partitions: Partitions;
  signals: EventSignals;
  metrics: EventMetrics;
  retentionDays: number;
  upkeep: readonly BatchUpkeep[];
}

interface Stored {
  /** Events stored by this call. */
  inserted: number;
  /** Valid events whose id the facility had already reported. */
  duplicates: number;
  /** What the statement's parts warn of (their `warn`). */
  warnings: IngestWarning[];
}

const iso = (ms: number) => new Date(ms).toISOString();
const NO_PARTITION = '23514'; // check_violation: "no partition of relation … found for row"

/** Judges, stores and counts a controller's batch; resolves after commit. */
export async function ingest(
  deps: IngestDeps,
  gateway: GatewayIdentity,
  reported: readonly unknown[],
  now: number,
): Promise<IngestAnswer> {
  const judgement = judgeBatch(reported, now, now - deps.retentionDays * 86_400_000);
  const stored = await store(deps, gateway, judgement.accepted, now);
  const duplicates = stored.duplicates + judgement.duplicatesInBatch;
  const { ingested } = deps.metrics;
  ingested.inc({ outcome: 'accepted' }, stored.inserted);
  ingested.inc({ outcome: 'duplicate' }, duplicates);
  ingested.inc({ outcome: 'rejected' }, judgement.rejected.length);
  ingested.inc({ outcome: 'clock_ahead' }, judgement.warnings.length);
  // The judge's warnings and the parts', in the order of the events they name.
  const warnings = [...judgement.warnings, ...stored.warnings].sort((a, b) => a.index - b.index);
  return { accepted: stored.inserted, duplicates, rejected: judgement.rejected, warnings };
}

async function store(
  deps: IngestDeps,
  gateway: GatewayIdentity,
  events: readonly AcceptedEvent[],
  receivedAt: number,
): Promise<Stored> {
  if (events.length === 0) return { inserted: 0, duplicates: 0, warnings: [] };
  const months = monthsOf(events.map((e) => e.occurredAt));
  await deps.partitions.ensure(months);
  let result: Stored;
  try {
    result = await insertBatch(deps, gateway, events, receivedAt);
  } catch (error) {
    // A partition dropped or never made behind this process's back: make it and try once more.
    if ((error as { code?: string }).code !== NO_PARTITION) throw error;
    deps.partitions.forget();
    await deps.partitions.ensure(months);
    result = await insertBatch(deps, gateway, events, receivedAt);
  }
  if (result.inserted > 0) deps.signals.stored(gateway.accountId, gateway.facilityId);
  return result;
}

async function insertBatch(
  { db, prepared, signals, upkeep }: IngestDeps,
  gateway: GatewayIdentity,
  events: readonly AcceptedEvent[],
  receivedAt: number,
): Promise<Stored> {
  // On PostgreSQL the statement tells the other instances too (signals.ts), when it stored something:
  // the notification goes out at commit, and costs no statement of its own.
  const notification = signals.notification(gateway.accountId, gateway.facilityId);
  const column = <T>(pick: (e: AcceptedEvent) => T) => events.map(pick);
  const ids = events.map(() => randomUUID());
  const batch: StoredBatch = { facilityId: gateway.facilityId, receivedAt, events };
  const parts = upkeep.flatMap((keep) => keep(batch));
  const upkeepParts =
    parts.length === 0 ? sql`` : sql`, ${sql.join(parts.map((part) => sql`${sql.raw(part.name)} as (${part.body})`))}`;
  const warning = parts.filter((part) => part.warn !== undefined);
  const warningRows = sql.join(
    warning.map(
      (part) => sql`, (select coalesce(json_agg(r), '[]') from ${sql.raw(part.name)} r) as ${sql.ref(part.name)}`,
    ),
    sql``,
  );
  // New ids first (the duplicates of earlier batches drop out here), then the events of the new
  // ids, in batch order, with the facility's account, name and time zone attached. The ids are
  // claimed in one order (byte order of the id): two batches in flight that share ids — a retry
  // with other events around them — then wait for each other, never in a cycle (a deadlock).
  // Its text is the same for every batch with the same parts (the values are arrays): planned once.
  const rows = await prepared<{ inserted: number } & Record<string, unknown>>(
    sql`
    with batch as (
      select * from unnest(
        ${ids}::uuid[],
        ${column((e) => e.eventId)}::text[],
        ${column((e) => e.eventType)}::int2[],
        ${column((e) => iso(e.occurredAt))}::timestamptz[],
        ${column((e) => e.deviceId)}::text[],
        ${column((e) => e.deviceName)}::text[],
        ${column((e) => e.unitId)}::int8[],
        ${column((e) => e.visitorId)}::int8[],
        ${column((e) => e.codeEntered)}::text[],
        ${column((e) => e.details)}::text[],
        ${column((e) => e.data)}::text[]
      ) with ordinality as b(id, event_id, event_type, occurred_at, device_id, device_name, unit_id, visitor_id,
                             code_entered, details, data, ord)
    ),
    fresh as (
      insert into gateway_event_ids (facility_id, event_id, occurred_at)
      select ${gateway.facilityId}::int8, event_id, occurred_at from batch
       order by event_id collate "C"
      on conflict do nothing
      returning event_id
    ),
    stored as (
      insert into gateway_events (id, account_id, facility_id, facility_name, time_zone, gwc_event_id, event_type, occurred_at,
                                  received_at, device_id, device_name, unit_id, unit_number, visitor_id, visitor_name,
                                  code_entered, details, data)
      select b.id, f.account_id, f.id, f.name, f.time_zone, b.event_id, b.event_type, b.occurred_at,
             ${iso(receivedAt)}::timestamptz, b.device_id, b.device_name,
             -- The facility's unit and visitor (an id of another facility's resolves to nothing); one
             -- primary-key probe each, whatever the planner thinks of a join with these tables.
             b.unit_id, (select u.unit_number from units u where u.id = b.unit_id and u.facility_id = f.id),
             b.visitor_id, (select concat_ws(' ', v.first_name, v.last_name) from visitors v
                             where v.id = b.visitor_id and v.facility_id = f.id),
             b.code_entered, b.details, b.data::jsonb
        from batch b
        join fresh using (event_id)
       cross join facilities f
       where f.id = ${gateway.facilityId}::int8 and f.account_id = ${gateway.accountId}::int8
       order by b.ord
      returning 1
    ),
    ${STORED} as (select count(*)::int as inserted from stored)
    ${upkeepParts}
    select inserted,
           case when inserted > 0 and ${notification?.channel ?? null}::text is not null
                then pg_notify(${notification?.channel ?? null}::text, ${notification?.payload ?? null}::text) end as notified
           ${warningRows}
      from ${STORED}`.compile(db),
  );
  const row = rows[0]!;
  const warnings = warning.flatMap((part) => part.warn!(row[part.name] as unknown[]));
  return { inserted: row.inserted, duplicates: events.length - row.inserted, warnings };
}

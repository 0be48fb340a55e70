// A controller's report, owned whole by the events face: each event judged on its own (judge.ts),
// the accepted ones stored in one transaction — one multi-row insert (unnest), idempotent on the
// controller's event id per facility — with what other faces keep in step with them (hooks the
// composition root hands in: access control acknowledges commands and keeps the facility's
// reported state), counted, committed before the controller hears "accepted", then announced.
//
// No lock is shared by an account's controllers (issue 12): batches of one account, of one facility
// even, are stored in parallel. Each row records the id of the transaction that stored it (column
// txid, migration 0006), and readers bound what they read by the horizon below which every
// transaction has ended (horizon.ts), so they never see a set that a later commit changes — what the
// account's lock used to give by putting the sequence in commit order. The unique key on
// (facility, event id) keeps each event stored once: a retry waits for the attempt in flight and
// finds its ids taken.
// Unit numbers and visitor names are looked up by the insert statement itself (a primary-key probe
// per id, at the event's facility: what is true when the event arrives is stored with it), which
// saved two statements per batch and a sixth of the CPU per event (docs/BENCHMARKS.md, issue 12
// item 2).
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import { COMMAND_RECEIVED } from './catalogue.ts';
import { judgeBatch, type AcceptedEvent, type IngestWarning, type Rejection } from './judge.ts';
import type { EventMetrics } from './metrics.ts';
import { monthsOf, type Partitions } from './partitions.ts';
import type { EventSignals } from './signals.ts';

export interface GatewayIdentity {
  accountId: EntityId;
  facilityId: EntityId;
}

/**
 * A batch as it commits, as the hooks see it: what other faces keep in step with the events runs
 * inside the batch's transaction, so that it commits with the events or not at all.
 */
export interface StoredBatch {
  facilityId: EntityId;
  receivedAt: number;
  /** Every accepted event, repeats of earlier batches included (applying a repeat must change nothing). */
  events: readonly AcceptedEvent[];
  /** The command ids named by the Command Received events this batch stored (a repeat's are not). */
  receivedCommandIds: readonly string[];
}
export type InBatchTransaction = (trx: Db, batch: StoredBatch) => Promise<void>;

/** What the controller hears back (the route's 200). */
export interface IngestAnswer {
  accepted: number;
  duplicates: number;
  rejected: Rejection[];
  warnings: IngestWarning[];
}

export interface IngestDeps {
  db: Db;
  partitions: Partitions;
  signals: EventSignals;
  metrics: EventMetrics;
  retentionDays: number;
  inBatchTransaction: readonly InBatchTransaction[];
}

interface Stored {
  /** Events stored by this call. */
  inserted: number;
  /** Valid events whose id the facility had already reported. */
  duplicates: number;
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
  return { accepted: stored.inserted, duplicates, rejected: judgement.rejected, warnings: judgement.warnings };
}

async function store(
  deps: IngestDeps,
  gateway: GatewayIdentity,
  events: readonly AcceptedEvent[],
  receivedAt: number,
): Promise<Stored> {
  if (events.length === 0) return { inserted: 0, duplicates: 0 };
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
  { db, signals, inBatchTransaction }: IngestDeps,
  gateway: GatewayIdentity,
  events: readonly AcceptedEvent[],
  receivedAt: number,
): Promise<Stored> {
  // On PostgreSQL the statement tells the other instances too (signals.ts), when it stored something:
  // the notification goes out at commit, and costs no statement of its own.
  const notification = signals.notification(gateway.accountId, gateway.facilityId);
  return db.transaction().execute(async (trx) => {
    const column = <T>(pick: (e: AcceptedEvent) => T) => events.map(pick);
    const ids = events.map(() => randomUUID());
    // New ids first (the duplicates of earlier batches drop out here), then the events of the new
    // ids, in batch order, with the facility's account, name and time zone attached. The ids are
    // claimed in one order (byte order of the id): two batches in flight that share ids — a retry
    // with other events around them — then wait for each other, never in a cycle (a deadlock).
    const { rows } = await sql<{ inserted: number; acknowledging: string[] }>`
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
        returning gwc_event_id, event_type
      )
      select count(*)::int as inserted,
             coalesce(array_agg(gwc_event_id) filter (where event_type = ${COMMAND_RECEIVED}), '{}') as acknowledging,
             case when count(*) > 0 and ${notification?.channel ?? null}::text is not null
                  then pg_notify(${notification?.channel ?? null}::text, ${notification?.payload ?? null}::text) end as notified
        from stored`.execute(trx);

    const stored = new Set(rows[0]!.acknowledging);
    const receivedCommandIds = events
      .filter((e) => e.commandId !== null && stored.has(e.eventId))
      .map((e) => e.commandId!);
    const batch: StoredBatch = {
      facilityId: gateway.facilityId,
      receivedAt,
      events,
      receivedCommandIds: [...new Set(receivedCommandIds)],
    };
    for (const hook of inBatchTransaction) await hook(trx, batch);
    const inserted = rows[0]!.inserted;
    return { inserted, duplicates: events.length - inserted };
  });
}

// Storing a judged batch: one transaction, one multi-row insert (unnest), idempotent on the
// controller's event id per facility, committed before the controller hears "accepted".
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
import type { EntityId } from '../ids.ts';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type pg from 'pg';
import { acknowledgeCommands } from '../access-control/acknowledge.ts';
import { recordReportedEvents, writtenStateOf } from '../access-control/reported-state.ts';
import { STATUS_DATA_EVENT_TYPES, type ReportedEvent } from '../access-control/status-rules.ts';
import type { Db } from '../db/tables.ts';
import { COMMAND_RECEIVED } from './catalogue.ts';
import type { AcceptedEvent } from './judge.ts';
import { ensurePartitions, forgetPartitions, monthsOf } from './partitions.ts';
import type { EventSignals } from './signals.ts';

export interface GatewayIdentity {
  accountId: EntityId;
  facilityId: EntityId;
}

export interface IngestResult {
  /** Events stored by this call. */
  inserted: number;
  /** Valid events whose id the facility had already reported. */
  duplicates: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

async function insertBatch(
  db: Db,
  gateway: GatewayIdentity,
  events: readonly AcceptedEvent[],
  receivedAt: number,
  signals: EventSignals | undefined,
): Promise<IngestResult> {
  // On PostgreSQL the statement tells the other instances too (signals.ts), when it stored something:
  // the notification goes out at commit, and costs no statement of its own.
  const notification = signals?.notification(gateway.accountId, gateway.facilityId) ?? null;
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

    // Command Received events acknowledge their commands (only those stored now: a repeat was
    // acknowledged the first time).
    const inserted = rows[0]!.inserted;
    const stored = new Set(rows[0]!.acknowledging);
    const commandIds = events.filter((e) => e.commandId !== null && stored.has(e.eventId)).map((e) => e.commandId!);
    if (commandIds.length > 0) await acknowledgeCommands(trx, gateway.facilityId, [...new Set(commandIds)]);
    // The facility's reported state (devices, alarms, switches, last heard) commits with its events.
    // Every accepted event is applied, repeats included: the state keeps the newest word, so a
    // repeat changes nothing.
    await recordReportedEvents(trx, gateway.facilityId, receivedAt, events.map(reportedEvent), writtenStateOf(db));
    return { inserted, duplicates: events.length - inserted };
  });
}

/** An accepted event as the reported state reads it; its data parsed only where the state needs a flag. */
function reportedEvent(e: AcceptedEvent): ReportedEvent {
  return {
    eventType: e.eventType,
    occurredAt: e.occurredAt,
    deviceId: e.deviceId,
    deviceName: e.deviceName,
    unitId: e.unitId,
    data: e.data !== null && STATUS_DATA_EVENT_TYPES.includes(e.eventType) ? JSON.parse(e.data) : null,
  };
}

const NO_PARTITION = '23514'; // check_violation: "no partition of relation … found for row"

/**
 * Stores the accepted events of a batch; resolves after commit. With `signals`, a batch that stored
 * something is announced (signals.ts): to this process's listeners after commit, and on PostgreSQL
 * to the other instances by the statement's pg_notify.
 */
export async function ingestEvents(
  db: Db,
  pool: pg.Pool,
  gateway: GatewayIdentity,
  events: readonly AcceptedEvent[],
  receivedAt: number,
  signals?: EventSignals,
): Promise<IngestResult> {
  if (events.length === 0) return { inserted: 0, duplicates: 0 };
  const months = monthsOf(events.map((e) => e.occurredAt));
  await ensurePartitions(pool, months);
  let result: IngestResult;
  try {
    result = await insertBatch(db, gateway, events, receivedAt, signals);
  } catch (error) {
    // A partition dropped or never made behind this process's back: make it and try once more.
    if ((error as { code?: string }).code !== NO_PARTITION) throw error;
    forgetPartitions(pool);
    await ensurePartitions(pool, months);
    result = await insertBatch(db, gateway, events, receivedAt, signals);
  }
  if (result.inserted > 0) signals?.stored(gateway.accountId, gateway.facilityId);
  return result;
}

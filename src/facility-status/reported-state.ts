// Keeping the reported state (SPEC §4.1) as the controller speaks: each stored batch of events
// updates its facility's row, devices and alarms in the batch's one statement (parts the ingest adds
// to it: the state and the events commit together, or neither does), and each poll marks the
// controller as heard. Every
// update keeps the newest word: a late event (an older occurredAt) never overrides a newer one.
import { sql } from 'kysely';
import { type BatchStatementPart, STORED } from '../events/index.ts';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import type { AcceptedEvent } from '../events/index.ts';
import {
  deviceReportWrites,
  reduceBatch,
  reportShows,
  STATUS_DATA_EVENT_TYPES,
  type BatchReport,
  type ReportedEvent,
  type WrittenState,
} from './rules.ts';

const iso = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());

/** The step in which "last heard" and a device's last event move (seconds). */
export const HEARD_STEP_SECONDS = 10;

/**
 * The facility's reported state as the controllers' reports keep it (one per facility-status face).
 *
 * It remembers what this instance last wrote of each facility: most batches of a busy controller
 * carry no word and would only move last heard and their devices' last event by a few seconds, so
 * they write nothing (for a batch of 3 events, the write costs ingest about a quarter of its rate).
 * Remembered before the batch's statement runs, so a batch that fails can leave last heard at most
 * one step behind until the next write; another instance's writes are never undone, since the
 * database keeps the newest of everything.
 */
export class ReportedState {
  private readonly written = new Map<EntityId, WrittenState>();

  /** The parts of a batch's statement that apply its events to the facility's reported state (none: nothing shows). */
  partsFor(facilityId: EntityId, receivedAt: number, events: readonly ReportedEvent[]): BatchStatementPart[] {
    if (events.length === 0) return [];
    const report = reduceBatch(events, receivedAt);
    const last = this.written.get(facilityId);
    if (!reportShows(report, receivedAt, last, HEARD_STEP_SECONDS * 1000)) return [];
    // Remember what the statement below will write: the same rules as its where-clauses.
    const step = HEARD_STEP_SECONDS * 1000;
    const state = last ?? { heardAt: 0, devices: new Map() };
    if (receivedAt > state.heardAt + step) state.heardAt = receivedAt;
    for (const d of report.devices) {
      const before = state.devices.get(d.deviceId);
      if (deviceReportWrites(d, before, step) && (!before || d.lastEventAt >= before.at))
        state.devices.set(d.deviceId, {
          type: d.lastEventType,
          name: d.name ?? before?.name ?? null,
          at: d.lastEventAt,
        });
    }
    this.written.set(facilityId, state);
    return reportParts(facilityId, receivedAt, report);
  }
}

/** An accepted event as the reported state reads it; its data parsed only where the state needs a flag. */
export function reportedEvent(e: AcceptedEvent): ReportedEvent {
  return {
    eventType: e.eventType,
    occurredAt: e.occurredAt,
    deviceId: e.deviceId,
    deviceName: e.deviceName,
    unitId: e.unitId,
    data: e.data !== null && STATUS_DATA_EVENT_TYPES.includes(e.eventType) ? JSON.parse(e.data) : null,
  };
}

/**
 * A batch's report as parts of its statement. Concurrent batches of one facility (a retry in flight,
 * a controller uploading from several threads) touch the same rows: each takes the facility's state
 * row after its events are stored (STORED) and before its devices and alarms, so that their upserts
 * never interleave and never wait on each other in a cycle (a deadlock, which PostgreSQL would break
 * by failing one valid batch).
 */
function reportParts(facilityId: EntityId, receivedAt: number, report: BatchReport): BatchStatementPart[] {
  const { devices, alarms, emergency, lockdown } = report;
  const device = <T>(pick: (d: (typeof devices)[number]) => T) => devices.map(pick);
  const alarm = <T>(pick: (a: (typeof alarms)[number]) => T) => alarms.map(pick);
  // The devices' and alarms' rows are produced only once `report_taken` has counted the locked row,
  // so they are written after it; the facility row is updated from `report_taken` too.
  return [
    {
      name: 'report_locked',
      body: sql`select 1 from facility_states, ${STORED} where facility_id = ${facilityId}::int8
                for no key update of facility_states`,
    },
    { name: 'report_taken', body: sql`select count(*) as rows_locked from report_locked` },
    {
      name: 'report_facility',
      body: sql`
        update facility_states set
          last_event_received_at = greatest(last_event_received_at, ${iso(receivedAt)}::timestamptz),
          emergency_reported = case when ${iso(emergency?.at)}::timestamptz >= coalesce(emergency_reported_at, '-infinity')
                                    then ${emergency?.enabled ?? null}::boolean else emergency_reported end,
          emergency_reported_at = greatest(emergency_reported_at, ${iso(emergency?.at)}::timestamptz),
          lockdown_reported = case when ${iso(lockdown?.at)}::timestamptz >= coalesce(lockdown_reported_at, '-infinity')
                                   then ${lockdown?.enabled ?? null}::boolean else lockdown_reported end,
          lockdown_reported_at = greatest(lockdown_reported_at, ${iso(lockdown?.at)}::timestamptz)
          from report_taken
         where facility_id = ${facilityId}::int8
           -- Last heard moves in steps of HEARD_STEP_SECONDS (the status thresholds are minutes): most
           -- batches then write no row here; a switch report always does.
           and (last_event_received_at is null
                or last_event_received_at < ${iso(receivedAt)}::timestamptz - make_interval(secs => ${HEARD_STEP_SECONDS})
                or ${emergency !== null || lockdown !== null}::boolean)`,
    },
    {
      name: 'report_devices',
      body: sql`
        insert into facility_devices as d (facility_id, device_id, name, is_offline, online_changed_at, is_paired,
                                           paired_changed_at, last_event_type, last_event_at)
        select ${facilityId}::int8, u.device_id, u.name, coalesce(u.is_offline, false), u.online_at,
               coalesce(u.is_paired, true), u.paired_at, u.last_type, u.last_at
          from unnest(${device((d) => d.deviceId)}::text[], ${device((d) => d.name)}::text[],
                      ${device((d) => d.offline?.value ?? null)}::bool[], ${device((d) => iso(d.offline?.at))}::timestamptz[],
                      ${device((d) => d.paired?.value ?? null)}::bool[], ${device((d) => iso(d.paired?.at))}::timestamptz[],
                      ${device((d) => d.lastEventType)}::int2[], ${device((d) => iso(d.lastEventAt))}::timestamptz[])
               as u(device_id, name, is_offline, online_at, is_paired, paired_at, last_type, last_at), report_taken
        on conflict (facility_id, device_id) do update set
          name = case when excluded.last_event_at >= d.last_event_at then coalesce(excluded.name, d.name)
                      else coalesce(d.name, excluded.name) end,
          last_event_type = case when excluded.last_event_at >= d.last_event_at then excluded.last_event_type
                                 else d.last_event_type end,
          last_event_at = greatest(d.last_event_at, excluded.last_event_at),
          is_offline = case when excluded.online_changed_at >= coalesce(d.online_changed_at, '-infinity')
                            then excluded.is_offline else d.is_offline end,
          online_changed_at = greatest(d.online_changed_at, excluded.online_changed_at),
          is_paired = case when excluded.paired_changed_at >= coalesce(d.paired_changed_at, '-infinity')
                           then excluded.is_paired else d.is_paired end,
          paired_changed_at = greatest(d.paired_changed_at, excluded.paired_changed_at)
         -- A row version only when something shows: a word on being online or paired, another type
         -- or name, or a last event HEARD_STEP_SECONDS newer (lastEventAt is kept to that step).
         where excluded.online_changed_at is not null or excluded.paired_changed_at is not null
            or (excluded.last_event_at > d.last_event_at
                and (excluded.last_event_type <> d.last_event_type or excluded.name <> d.name
                     or (d.name is null and excluded.name is not null)
                     or excluded.last_event_at > d.last_event_at + make_interval(secs => ${HEARD_STEP_SECONDS})))`,
    },
    {
      name: 'report_alarms',
      body: sql`
        insert into facility_alarms as a (facility_id, event_type, source, device_id, device_name, unit_id, unit_number,
                                          active, changed_at)
        select ${facilityId}::int8, u.event_type, u.source, u.device_id, u.device_name, u.unit_id,
               (select n.unit_number from units n where n.id = u.unit_id and n.facility_id = ${facilityId}::int8),
               u.active, u.changed_at
          from unnest(${alarm((a) => a.eventType)}::int2[], ${alarm((a) => a.source)}::text[],
                      ${alarm((a) => a.deviceId)}::text[], ${alarm((a) => a.deviceName)}::text[],
                      ${alarm((a) => a.unitId)}::int8[], ${alarm((a) => a.active)}::bool[],
                      ${alarm((a) => iso(a.at))}::timestamptz[])
               as u(event_type, source, device_id, device_name, unit_id, active, changed_at), report_taken
        on conflict (facility_id, event_type, source) do update set
          device_id = excluded.device_id, device_name = excluded.device_name,
          unit_id = excluded.unit_id, unit_number = excluded.unit_number,
          active = excluded.active, changed_at = excluded.changed_at
         where excluded.changed_at >= a.changed_at`,
    },
  ];
}

/** A poll marks the controller as heard at most this often per facility and instance. */
export const POLL_MARK_INTERVAL_MS = 30_000;

/**
 * Marks polls: the controller asks for commands every few seconds, and a write per poll would cost
 * more than the status needs (its finest threshold is 2 minutes), so each instance writes a
 * facility's poll time at most every POLL_MARK_INTERVAL_MS.
 */
export class PollMarks {
  private readonly marked = new Map<EntityId, number>();

  constructor(private readonly db: Db) {}

  async mark(facilityId: EntityId, now: number): Promise<void> {
    const last = this.marked.get(facilityId);
    if (last !== undefined && now - last < POLL_MARK_INTERVAL_MS) return;
    this.marked.set(facilityId, now);
    if (this.marked.size > 100_000) this.sweep(now);
    await sql`
      update facility_states set last_polled_at = greatest(last_polled_at, ${iso(now)}::timestamptz)
       where facility_id = ${facilityId}::int8`.execute(this.db);
  }

  private sweep(now: number) {
    for (const [facility, at] of this.marked) if (now - at >= POLL_MARK_INTERVAL_MS) this.marked.delete(facility);
  }
}

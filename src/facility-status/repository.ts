// The SQL of facility status: the facts every status word is decided from, for one facility or
// for all of an account's (or, for the operator, every facility) in one query; devices, alarms,
// the remote switches' state, the facility's action groups and its maintenance windows, its remote actions.
import { type Insertable, type Selectable, sql } from 'kysely';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import { alarmLabel, type FacilitySwitch, type StatusFacts } from './rules.ts';
import type { MaintenanceWindowsTable, RemoteActionsTable } from './tables.ts';

export interface StatusFactsRow {
  facility_id: EntityId;
  facility_name: string;
  property_number: string | null;
  account_id: EntityId;
  account_name: string;
  /** The facility belongs to a sandbox (issue 30). */
  sandbox: boolean;
  last_event_received_at: Date | null;
  last_polled_at: Date | null;
  emergency_reported: boolean | null;
  emergency_desired: boolean | null;
  lockdown_reported: boolean | null;
  lockdown_desired: boolean | null;
  recorded_statuses: Record<string, string> | null;
  device_count: number;
  offline_devices: string[];
  active_alarms: ActiveAlarmRow[];
  pending_commands: number;
  oldest_pending_at: Date | null;
  /** The facility's windows not over at the time read (JSON: times as ISO strings). */
  maintenance_windows: MaintenanceWindowFactRow[];
  /** The facility's open drift (src/drift): when found and how many items, or nulls. */
  drift_found_at: Date | null;
  drift_items: number | null;
}

export interface MaintenanceWindowFactRow {
  id: EntityId;
  starts_at: string;
  ends_at: string;
  reason: string | null;
  cancelled_at: string | null;
}

export interface ActiveAlarmRow {
  event_type: number;
  device_id: string | null;
  device_name: string | null;
  unit_id: EntityId | null;
  unit_number: string | null;
  since: string;
}

/**
 * The status facts of the facilities chosen by `where` (over `f`, the facilities table), by name,
 * at `now` (the face's clock: the windows not over then). Each part is an index probe per facility:
 * devices by their primary key, offline devices and active alarms by partial indexes, open commands
 * by the unacknowledged-commands index, maintenance windows by (facility, end), the open drift by its
 * partial unique index.
 */
function selectFacts(db: Db, where: ReturnType<typeof sql>, now: number) {
  const at = new Date(now).toISOString();
  return sql<StatusFactsRow>`
    select f.id as facility_id, f.name as facility_name, f.property_number, f.account_id, a.name as account_name,
           a.sandbox_of is not null as sandbox,
           s.last_event_received_at, s.last_polled_at, s.emergency_reported, s.emergency_desired,
           s.lockdown_reported, s.lockdown_desired, r.statuses as recorded_statuses,
           (select count(*)::int from facility_devices d where d.facility_id = f.id and d.is_paired) as device_count,
           coalesce((select array_agg(coalesce(d.name, d.device_id) order by coalesce(d.name, d.device_id))
                       from facility_devices d where d.facility_id = f.id and d.is_offline and d.is_paired), '{}') as offline_devices,
           coalesce((select json_agg(json_build_object('event_type', al.event_type, 'device_id', al.device_id,
                                                       'device_name', al.device_name, 'unit_id', al.unit_id,
                                                       'unit_number', al.unit_number, 'since', al.changed_at)
                                     order by al.changed_at)
                       from facility_alarms al where al.facility_id = f.id and al.active), '[]') as active_alarms,
           c.pending_commands, c.oldest_pending_at,
           dr.found_at as drift_found_at, jsonb_array_length(dr.items) as drift_items,
           coalesce((select json_agg(json_build_object('id', w.id, 'starts_at', w.starts_at, 'ends_at', w.ends_at,
                                                       'reason', w.reason, 'cancelled_at', w.cancelled_at)
                                     order by w.starts_at, w.id)
                       from maintenance_windows w
                      where w.facility_id = f.id and w.ends_at > ${at}::timestamptz
                        and (w.cancelled_at is null or w.cancelled_at > ${at}::timestamptz)), '[]') as maintenance_windows
      from facilities f
      join accounts a on a.id = f.account_id
      left join facility_states s on s.facility_id = f.id
      left join facility_recorded_statuses r on r.facility_id = f.id
      left join drifts dr on dr.facility_id = f.id and dr.healed_at is null
      cross join lateral (select count(*)::int as pending_commands, min(created_at) as oldest_pending_at
                            from commands cm
                           where cm.facility_id = f.id and cm.acknowledged_at is null and cm.failed_at is null
                             and cm.expires_at > now()) c
     where ${where}
     order by f.name, f.id`.execute(db);
}

const ms = (date: Date | string | null) => (date === null ? null : new Date(date).getTime());

/** The facts of a row, as the status rules read them. */
export function statusFactsOf(row: StatusFactsRow): StatusFacts {
  return {
    lastEventReceivedAt: ms(row.last_event_received_at),
    lastPolledAt: ms(row.last_polled_at),
    deviceCount: row.device_count,
    offlineDevices: row.offline_devices,
    activeAlarms: row.active_alarms.map((a) =>
      alarmLabel({
        eventType: a.event_type,
        deviceId: a.device_id,
        deviceName: a.device_name,
        unitNumber: a.unit_number,
      }),
    ),
    emergencyReported: row.emergency_reported,
    lockdownReported: row.lockdown_reported,
    pendingCommands: row.pending_commands,
    oldestPendingAt: ms(row.oldest_pending_at),
    openDrift: row.drift_found_at === null ? null : { foundAt: ms(row.drift_found_at)!, items: row.drift_items ?? 0 },
    maintenanceWindows: row.maintenance_windows.map((w) => ({
      id: w.id,
      startsAt: Date.parse(w.starts_at),
      endsAt: Date.parse(w.ends_at),
      cancelledAt: ms(w.cancelled_at),
      reason: w.reason,
    })),
  };
}

export async function selectStatusFacts(
  db: Db,
  scope: { accountId: EntityId } | { facilityId: EntityId } | 'all',
  now: number,
): Promise<StatusFactsRow[]> {
  const where =
    scope === 'all'
      ? sql`true`
      : 'accountId' in scope
        ? sql`f.account_id = ${scope.accountId}::int8`
        : sql`f.id = ${scope.facilityId}::int8`;
  return (await selectFacts(db, where, now)).rows;
}

export function selectDevices(db: Db, facilityId: EntityId) {
  return db
    .selectFrom('facility_devices')
    .select(['device_id', 'name', 'is_paired', 'is_offline', 'last_event_type', 'last_event_at'])
    .where('facility_id', '=', facilityId)
    .orderBy('name')
    .orderBy('device_id')
    .execute();
}

/**
 * One switch's reported and desired values; with `lock`, the facility's state row stays locked to
 * commit (a switch request decides on it).
 */
export async function selectSwitch(
  db: Db,
  facilityId: EntityId,
  which: FacilitySwitch,
  options: { lock?: boolean } = {},
): Promise<{ reported: boolean | null; desired: boolean | null }> {
  const { rows } = await sql<{ reported: boolean | null; desired: boolean | null }>`
    select ${sql.ref(`${which}_reported`)} as reported, ${sql.ref(`${which}_desired`)} as desired
      from facility_states where facility_id = ${facilityId}::int8 ${options.lock ? sql`for update` : sql``}`.execute(
    db,
  );
  return rows[0] ?? { reported: null, desired: null };
}

export async function setDesired(trx: Db, facilityId: EntityId, which: FacilitySwitch, desired: boolean) {
  await sql`update facility_states set ${sql.ref(`${which}_desired`)} = ${desired}
             where facility_id = ${facilityId}::int8`.execute(trx);
}

export function selectActionGroups(db: Db, facilityId: EntityId, manualOnly: boolean) {
  let query = db
    .selectFrom('action_groups')
    .select(['id', 'name', 'is_manual', 'created_at'])
    .where('facility_id', '=', facilityId);
  if (manualOnly) query = query.where('is_manual', '=', true);
  return query.orderBy('id').execute();
}

export function findActionGroup(db: Db, facilityId: EntityId, actionGroupId: EntityId) {
  return db
    .selectFrom('action_groups')
    .select(['id', 'name'])
    .where('facility_id', '=', facilityId)
    .where('id', '=', actionGroupId)
    .executeTakeFirst();
}

export function insertActionGroup(db: Db, facilityId: EntityId, name: string, isManual: boolean) {
  return db
    .insertInto('action_groups')
    .values({ facility_id: facilityId, name, is_manual: isManual })
    .returning(['id', 'name', 'is_manual', 'created_at'])
    .executeTakeFirstOrThrow();
}

/** Records status words that changed, and remembers the facility's current words. */
export async function recordStatusChanges(
  db: Db,
  facilityId: EntityId,
  accountId: EntityId,
  changes: { component: string; previous: string | null; status: string; message: string }[],
  current: Record<string, string>,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (changes.length > 0)
      await trx
        .insertInto('facility_status_changes')
        .values(
          changes.map((c) => ({
            facility_id: facilityId,
            account_id: accountId,
            component: c.component,
            previous_status: c.previous,
            status: c.status,
            message: c.message,
          })),
        )
        .execute();
    await trx
      .insertInto('facility_recorded_statuses')
      .values({ facility_id: facilityId, statuses: JSON.stringify(current) })
      .onConflict((oc) => oc.column('facility_id').doUpdateSet({ statuses: JSON.stringify(current) }))
      .execute();
  });
}

// ---- remote actions (issue 28; remote-actions.ts) ----

/** When the facility's controller last sent events and last polled (null: never). */
export async function selectLastHeard(
  db: Db,
  facilityId: EntityId,
): Promise<{ last_event_received_at: Date | null; last_polled_at: Date | null }> {
  const row = await db
    .selectFrom('facility_states')
    .select(['last_event_received_at', 'last_polled_at'])
    .where('facility_id', '=', facilityId)
    .executeTakeFirst();
  return row ?? { last_event_received_at: null, last_polled_at: null };
}

export function insertRemoteAction(trx: Db, action: Insertable<RemoteActionsTable>) {
  return trx.insertInto('remote_actions').values(action).returning(['id', 'requested_at']).executeTakeFirstOrThrow();
}

/** The facility's remote actions, newest first; with `before`, those requested before that one (of the facility). */
export function selectRemoteActions(db: Db, facilityId: EntityId, options: { limit: number; before?: string }) {
  let query = db
    .selectFrom('remote_actions')
    .selectAll()
    .where('facility_id', '=', facilityId)
    .orderBy('requested_at', 'desc')
    .orderBy('id', 'desc')
    .limit(options.limit);
  if (options.before !== undefined) {
    const before = options.before;
    query = query.where(({ eb, refTuple, selectFrom }) =>
      eb(
        refTuple('requested_at', 'id'),
        '<',
        selectFrom('remote_actions as b')
          .select(['b.requested_at', 'b.id'])
          .where('b.id', '=', before)
          .where('b.facility_id', '=', facilityId)
          .$asTuple('requested_at', 'id'),
      ),
    );
  }
  return query.execute();
}

/** Deletes up to `slice` remote actions requested before the cutoff; returns how many. */
export async function deleteRemoteActionsBefore(db: Db, cutoff: Date, slice: number): Promise<number> {
  const result = await db
    .deleteFrom('remote_actions')
    .where('id', 'in', (qb) =>
      qb.selectFrom('remote_actions').select('id').where('requested_at', '<', cutoff).limit(slice),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

// ---- maintenance windows ----

export type MaintenanceWindowRow = Selectable<MaintenanceWindowsTable>;

export function insertMaintenanceWindow(
  db: Db,
  window: {
    facilityId: EntityId;
    startsAt: Date;
    endsAt: Date;
    reason: string | null;
    scheduledBy: string;
    createdAt: Date;
  },
): Promise<MaintenanceWindowRow> {
  return db
    .insertInto('maintenance_windows')
    .values({
      facility_id: window.facilityId,
      starts_at: window.startsAt,
      ends_at: window.endsAt,
      reason: window.reason,
      scheduled_by: window.scheduledBy,
      created_at: window.createdAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findMaintenanceWindow(
  db: Db,
  facilityId: EntityId,
  windowId: EntityId,
): Promise<MaintenanceWindowRow | undefined> {
  return db
    .selectFrom('maintenance_windows')
    .selectAll()
    .where('facility_id', '=', facilityId)
    .where('id', '=', windowId)
    .executeTakeFirst();
}

/**
 * A facility's windows, at most `limit`: those not over at `now` by start (`upcoming`), or every
 * one, newest start first (`all`); after the window `after` in that order.
 */
export async function selectMaintenanceWindows(
  db: Db,
  facilityId: EntityId,
  options: { include: 'upcoming' | 'all'; now: Date; limit: number; after: MaintenanceWindowRow | null },
): Promise<MaintenanceWindowRow[]> {
  const { include, now, limit, after } = options;
  const newestFirst = include === 'all';
  let query = db.selectFrom('maintenance_windows').selectAll().where('facility_id', '=', facilityId);
  if (include === 'upcoming')
    query = query
      .where('ends_at', '>', now)
      .where((w) => w.or([w('cancelled_at', 'is', null), w('cancelled_at', '>', now)]));
  if (after)
    query = query.where(({ eb, refTuple, tuple }) =>
      eb(refTuple('starts_at', 'id'), newestFirst ? '<' : '>', tuple(after.starts_at, after.id)),
    );
  const order = newestFirst ? 'desc' : 'asc';
  return query.orderBy('starts_at', order).orderBy('id', order).limit(limit).execute();
}

/** Cancels the window if it is neither cancelled nor over at `at`; undefined when it was. */
export function cancelMaintenanceWindow(
  db: Db,
  facilityId: EntityId,
  windowId: EntityId,
  at: Date,
  by: string,
): Promise<MaintenanceWindowRow | undefined> {
  return db
    .updateTable('maintenance_windows')
    .set({ cancelled_at: at, cancelled_by: by })
    .where('facility_id', '=', facilityId)
    .where('id', '=', windowId)
    .where('cancelled_at', 'is', null)
    .where('ends_at', '>', at)
    .returningAll()
    .executeTakeFirst();
}

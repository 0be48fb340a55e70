// The SQL of the sandbox controllers: their rows and standing controls, the actions held for them, and the
// leases by which one instance runs each (claimed with `for update skip locked`, renewed, released). Lease
// times are the database's (`now()`): the instances' clocks need not agree. Whether a sandbox is idle is
// judged by the service's clock (its last use is written by it).
import { sql } from 'kysely';
import type { Db } from '../../db/tables.ts';
import type { EntityId } from '../../ids.ts';
import type { ControllerAction } from './rules.ts';
import type { SandboxControllerTables } from './tables.ts';

const tablesOf = (db: Db) => db.withTables<SandboxControllerTables>();

export interface ControllerRow {
  facility_id: EntityId;
  credential_id: string;
  client_id: string;
  sealed_secret: Buffer;
  online: boolean;
  activity_per_hour: number;
  offline_devices: string[];
}

/** A controller's standing controls and lease, as its runner reads them each tick. */
export interface ControlsRow {
  facility_id: EntityId;
  online: boolean;
  activity_per_hour: number;
  offline_devices: string[];
  leased_by: string | null;
  /** Actions are waiting for it. */
  pending: boolean;
}

export async function insertController(db: Db, row: Omit<ControllerRow, 'online' | 'offline_devices'>): Promise<void> {
  await tablesOf(db).insertInto('sandbox_controllers').values(row).execute();
}

/** A controller's row with what an integrator reads of it: its controls, its lease, the actions waiting. */
export async function controllerView(db: Db, facilityId: EntityId) {
  return tablesOf(db)
    .selectFrom('sandbox_controllers as c')
    .select((eb) => [
      'c.facility_id',
      'c.online',
      'c.activity_per_hour',
      'c.offline_devices',
      'c.leased_by',
      'c.lease_until',
      sql<boolean>`c.lease_until is not null and c.lease_until > now()`.as('running'),
      eb
        .selectFrom('sandbox_controller_actions as a')
        .whereRef('a.facility_id', '=', 'c.facility_id')
        .select(sql<number>`count(*)::int`.as('n'))
        .as('pending_actions'),
    ])
    .where('c.facility_id', '=', facilityId)
    .executeTakeFirst();
}

/** The controller's row, held until the transaction ends (controls of one controller are decided one at a time). */
export async function lockController(trx: Db, facilityId: EntityId) {
  return tablesOf(trx)
    .selectFrom('sandbox_controllers')
    .select(['facility_id', 'offline_devices'])
    .where('facility_id', '=', facilityId)
    .forUpdate()
    .executeTakeFirst();
}

/** Actions waiting for the controller, counted up to `cap` (no further). */
export async function pendingActions(trx: Db, facilityId: EntityId, cap: number): Promise<number> {
  const row = await sql<{ n: number }>`
    select count(*)::int as n from (
      select 1 from sandbox_controller_actions where facility_id = ${facilityId}::int8 limit ${cap}::int) held`.execute(
    trx,
  );
  return row.rows[0]?.n ?? 0;
}

export async function insertAction(
  trx: Db,
  facilityId: EntityId,
  action: ControllerAction,
  requestedAt: Date,
): Promise<void> {
  await tablesOf(trx)
    .insertInto('sandbox_controller_actions')
    .values({
      facility_id: facilityId,
      kind: action.kind,
      payload: JSON.stringify(action.payload),
      requested_at: requestedAt,
    })
    .execute();
}

/** Sets standing controls; false when the facility has no hosted controller. */
export async function setControls(
  db: Db,
  facilityId: EntityId,
  controls: { online?: boolean; activity_per_hour?: number; offline_devices?: string[] },
): Promise<boolean> {
  const result = await tablesOf(db)
    .updateTable('sandbox_controllers')
    .set(controls)
    .where('facility_id', '=', facilityId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

const leaseFor = (leaseMs: number) => sql`now() + ${leaseMs}::int * interval '1 millisecond'`;

/**
 * Claims for `instance` up to `limit` controllers that no one runs (never leased, released, or whose lease
 * ran out) of sandboxes used since `activeSince`. Walks from the sandboxes in use (accounts' partial index
 * on their last use), so it reads the active ones only, however many sandboxes sleep; a row another
 * instance is claiming at the same moment is skipped, not waited for.
 */
export async function claimControllers(
  db: Db,
  instance: string,
  limit: number,
  activeSince: Date,
  leaseMs: number,
): Promise<ControllerRow[]> {
  if (limit <= 0) return [];
  const result = await sql<ControllerRow>`
    with claimable as (
      select c.facility_id
        from accounts a
        join facilities f on f.account_id = a.id
        join sandbox_controllers c on c.facility_id = f.id
       where a.sandbox_of is not null and a.last_used_at >= ${activeSince}
         and (c.lease_until is null or c.lease_until < now())
       order by c.facility_id
       limit ${limit}::int
         for update of c skip locked)
    update sandbox_controllers c
       set leased_by = ${instance}, lease_until = ${leaseFor(leaseMs)}
      from claimable
     where c.facility_id = claimable.facility_id
    returning c.facility_id, c.credential_id, c.client_id, c.sealed_secret, c.online, c.activity_per_hour,
              c.offline_devices`.execute(db);
  return result.rows;
}

/**
 * Renews `instance`'s leases of `facilityIds` whose sandboxes were used since `activeSince`, and releases
 * those of idle sandboxes, in one statement. Answers each controller still leased to the instance, and
 * whether it keeps it: one not answered is no longer its own (deleted, or taken after its lease ran out).
 */
export async function renewLeases(
  db: Db,
  instance: string,
  facilityIds: readonly EntityId[],
  activeSince: Date,
  leaseMs: number,
): Promise<{ facility_id: EntityId; kept: boolean }[]> {
  if (facilityIds.length === 0) return [];
  const active = sql`coalesce(a.last_used_at >= ${activeSince}, false)`;
  const result = await sql<{ facility_id: EntityId; kept: boolean }>`
    update sandbox_controllers c
       set leased_by = case when ${active} then c.leased_by end,
           lease_until = case when ${active} then ${leaseFor(leaseMs)} end
      from facilities f
      join accounts a on a.id = f.account_id
     where f.id = c.facility_id and c.facility_id = any(${facilityIds}::int8[]) and c.leased_by = ${instance}
    returning c.facility_id, c.leased_by is not null as kept`.execute(db);
  return result.rows;
}

/** Gives up `instance`'s leases (all of them, or those of `facilityIds`): another instance may claim them at once. */
export async function releaseLeases(db: Db, instance: string, facilityIds?: readonly EntityId[]): Promise<number> {
  let query = tablesOf(db)
    .updateTable('sandbox_controllers')
    .set({ leased_by: null, lease_until: null })
    .where('leased_by', '=', instance);
  if (facilityIds) {
    if (facilityIds.length === 0) return 0;
    query = query.where('facility_id', 'in', facilityIds);
  }
  return Number((await query.executeTakeFirst()).numUpdatedRows);
}

/** The controls of the controllers an instance runs (one statement, by primary key, however few or many). */
export async function controlsOf(db: Db, facilityIds: readonly EntityId[]): Promise<ControlsRow[]> {
  if (facilityIds.length === 0) return [];
  const result = await sql<ControlsRow>`
    select c.facility_id, c.online, c.activity_per_hour, c.offline_devices, c.leased_by,
           exists (select 1 from sandbox_controller_actions a where a.facility_id = c.facility_id) as pending
      from sandbox_controllers c
     where c.facility_id = any(${facilityIds}::int8[])`.execute(db);
  return result.rows;
}

/** Takes (deletes and answers) up to `limit` actions of the given controllers, oldest first. */
export async function takeActions(db: Db, facilityIds: readonly EntityId[], limit: number) {
  if (facilityIds.length === 0) return [];
  const result = await sql<{
    id: number;
    facility_id: EntityId;
    kind: ControllerAction['kind'];
    payload: ControllerAction['payload'];
    requested_at: Date;
  }>`
    delete from sandbox_controller_actions
     where id in (select id from sandbox_controller_actions
                   where facility_id = any(${facilityIds}::int8[])
                   order by id limit ${limit}::int
                     for update skip locked)
    returning id, facility_id, kind, payload, requested_at`.execute(db);
  return result.rows.sort((a, b) => a.id - b.id);
}

/** Whether a gateway credential is a hosted controller's (its token is no use of the sandbox by the integrator). */
export async function isHostedCredential(db: Db, credentialId: string): Promise<boolean> {
  const row = await tablesOf(db)
    .selectFrom('sandbox_controllers')
    .select('facility_id')
    .where('credential_id', '=', credentialId)
    .executeTakeFirst();
  return row !== undefined;
}

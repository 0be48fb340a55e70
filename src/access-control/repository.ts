// The SQL of the access-control face's data: units, visitors, time groups, access profiles, the
// gate-code key (and the one read of tenancy's facilities it needs). The commands' SQL is the
// command queue's (src/commands/repository.ts). No rule lives here — what may change is decided by the operations
// (units.ts, visitors.ts, …) through rules.ts; a function here runs one statement on the
// connection or transaction it is given.
import { sql, type Insertable, type Updateable } from 'kysely';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import type { UnitStatus } from './rules.ts';
import type { VisitorsTable } from './tables.ts';

// ---- facilities (tenancy's table, read for the PMS's list) ----

/** The account's facilities, by name. */
export function selectAccountFacilities(db: Db, accountId: EntityId) {
  return db
    .selectFrom('facilities')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('name')
    .orderBy('id')
    .execute();
}

/** The facility with this property number (unique within the service). */
export function selectFacilityByPropertyNumber(db: Db, propertyNumber: string) {
  return db.selectFrom('facilities').selectAll().where('property_number', '=', propertyNumber).executeTakeFirst();
}

// ---- units ----

const UNIT_COLUMNS = ['id', 'facility_id', 'unit_number', 'status', 'extended_data'] as const;

export interface UnitRow {
  id: EntityId;
  facility_id: EntityId;
  unit_number: string;
  status: UnitStatus;
  extended_data: Record<string, unknown> | null;
}

const liveUnit = (db: Db, facilityId: EntityId, unitId: EntityId) =>
  db
    .selectFrom('units')
    .select(UNIT_COLUMNS)
    .where('id', '=', unitId)
    .where('facility_id', '=', facilityId)
    .where('deleted_at', 'is', null);

/** A live unit of the facility. */
export function findUnit(db: Db, facilityId: EntityId, unitId: EntityId): Promise<UnitRow | undefined> {
  return liveUnit(db, facilityId, unitId).executeTakeFirst();
}

/** A live unit of the facility, its row locked until the transaction ends. */
export function lockUnitRow(trx: Db, facilityId: EntityId, unitId: EntityId): Promise<UnitRow | undefined> {
  return liveUnit(trx, facilityId, unitId).forUpdate().executeTakeFirst();
}

/** The facility's live units by unit number, a page of them when asked. */
export function selectUnits(
  db: Db,
  facilityId: EntityId,
  page: { limit?: number; offset?: number },
): Promise<UnitRow[]> {
  let query = db
    .selectFrom('units')
    .select(UNIT_COLUMNS)
    .where('facility_id', '=', facilityId)
    .where('deleted_at', 'is', null)
    .orderBy('unit_number')
    .orderBy('id');
  if (page.limit !== undefined) query = query.limit(page.limit);
  if (page.offset) query = query.offset(page.offset);
  return query.execute();
}

/** What a units refresh carries: every live unit of the facility, by unit number. */
export function selectUnitStates(trx: Db, facilityId: EntityId) {
  return trx
    .selectFrom('units')
    .select(['id', 'unit_number', 'status'])
    .where('facility_id', '=', facilityId)
    .where('deleted_at', 'is', null)
    .orderBy('unit_number')
    .execute();
}

/** The live units of the facility among the ids given (a drift's heal). */
export function selectUnitStatesById(trx: Db, facilityId: EntityId, ids: readonly EntityId[]) {
  return trx
    .selectFrom('units')
    .select(['id', 'unit_number', 'status'])
    .where('facility_id', '=', facilityId)
    .where('id', 'in', ids)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .execute();
}

/** The facility's time zone (a visitor's time group carries it to the controller). */
export async function facilityTimeZone(trx: Db, facilityId: EntityId): Promise<string> {
  const row = await trx
    .selectFrom('facilities')
    .select('time_zone')
    .where('id', '=', facilityId)
    .executeTakeFirstOrThrow();
  return row.time_zone;
}

export function insertUnit(
  trx: Db,
  facilityId: EntityId,
  unitNumber: string,
  extendedData: string | null,
): Promise<UnitRow> {
  return trx
    .insertInto('units')
    .values({ facility_id: facilityId, unit_number: unitNumber, extended_data: extendedData })
    .returning(UNIT_COLUMNS)
    .executeTakeFirstOrThrow();
}

export function setUnitStatus(trx: Db, unitId: EntityId, status: UnitStatus): Promise<UnitRow> {
  return trx
    .updateTable('units')
    .set({ status, updated_at: sql`now()` })
    .where('id', '=', unitId)
    .returning(UNIT_COLUMNS)
    .executeTakeFirstOrThrow();
}

/** Deletes the unit (it is kept, marked deleted). */
export async function deleteUnit(trx: Db, unitId: EntityId): Promise<void> {
  await trx
    .updateTable('units')
    .set({ deleted_at: sql`now()`, updated_at: sql`now()` })
    .where('id', '=', unitId)
    .execute();
}

// ---- visitors ----

/** A live visitor with their unit, time group and access profile: what views and commands are made of. */
const visitorQuery = (db: Db) =>
  db
    .selectFrom('visitors as v')
    .leftJoin('units as u', 'u.id', 'v.unit_id')
    .innerJoin('time_groups as tg', 'tg.id', 'v.time_group_id')
    .innerJoin('access_profiles as ap', 'ap.id', 'v.access_profile_id')
    .select([
      'v.id',
      'v.facility_id',
      'v.unit_id',
      'v.first_name',
      'v.last_name',
      'v.email',
      'v.mobile_phone_number',
      'v.contact_method_preference',
      'v.country_code',
      'v.is_tenant',
      'v.is_portal_visitor',
      'v.is_enabled',
      'v.extended_data',
      'v.access_code_sealed',
      'u.unit_number',
      'u.status as unit_status',
      'tg.id as time_group_id',
      'tg.name as time_group_name',
      'tg.windows as time_group_windows',
      'ap.id as access_profile_id',
      'ap.name as access_profile_name',
      'ap.access_areas',
    ])
    .where('v.removed_at', 'is', null);

export type VisitorRow = Awaited<ReturnType<ReturnType<typeof visitorQuery>['executeTakeFirstOrThrow']>>;

export function findVisitor(db: Db, facilityId: EntityId, visitorId: EntityId): Promise<VisitorRow | undefined> {
  return visitorQuery(db).where('v.id', '=', visitorId).where('v.facility_id', '=', facilityId).executeTakeFirst();
}

/** The facility's visitors (of one unit, when given) by unit number and name, a page of them when asked. */
export function selectVisitors(
  db: Db,
  facilityId: EntityId,
  options: { unitId?: EntityId; unitNumber?: string; limit?: number; offset?: number },
): Promise<VisitorRow[]> {
  let query = visitorQuery(db)
    .where('v.facility_id', '=', facilityId)
    .orderBy('u.unit_number')
    .orderBy('v.last_name')
    .orderBy('v.first_name')
    .orderBy('v.id');
  if (options.unitId !== undefined) query = query.where('v.unit_id', '=', options.unitId);
  if (options.unitNumber !== undefined)
    query = query.where('u.unit_number', '=', options.unitNumber).where('u.deleted_at', 'is', null);
  if (options.limit !== undefined) query = query.limit(options.limit);
  if (options.offset) query = query.offset(options.offset);
  return query.execute();
}

/** What a visitors refresh carries: every live visitor of the facility, by unit number. */
export function selectVisitorStates(trx: Db, facilityId: EntityId): Promise<VisitorRow[]> {
  return visitorQuery(trx).where('v.facility_id', '=', facilityId).orderBy('u.unit_number').orderBy('v.id').execute();
}

/** The live visitors of the facility among the ids given (a drift's heal). */
export function selectVisitorStatesById(
  trx: Db,
  facilityId: EntityId,
  ids: readonly EntityId[],
): Promise<VisitorRow[]> {
  return visitorQuery(trx).where('v.facility_id', '=', facilityId).where('v.id', 'in', ids).orderBy('v.id').execute();
}

/** The next visitor id, drawn before the insert (the sealed code is bound to it). */
export async function nextVisitorId(trx: Db): Promise<EntityId> {
  const { rows } = await sql<{ id: EntityId }>`select nextval(pg_get_serial_sequence('visitors', 'id')) as id`.execute(
    trx,
  );
  return rows[0]!.id;
}

export async function insertVisitor(trx: Db, values: Insertable<VisitorsTable>): Promise<void> {
  await trx.insertInto('visitors').values(values).execute();
}

/** The columns given, and updated_at. */
export async function updateVisitorRow(
  trx: Db,
  visitorId: EntityId,
  changes: Updateable<VisitorsTable>,
): Promise<void> {
  await trx
    .updateTable('visitors')
    .set({ ...changes, updated_at: sql`now()` })
    .where('id', '=', visitorId)
    .execute();
}

/** A live visitor's unit and tenancy, the row locked until the transaction ends. */
export function lockVisitorPlacement(trx: Db, visitorId: EntityId) {
  return trx
    .selectFrom('visitors')
    .select(['unit_id', 'is_tenant'])
    .where('id', '=', visitorId)
    .where('removed_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
}

/** A live visitor's switch, the row locked until the transaction ends. */
export function lockVisitorSwitch(trx: Db, facilityId: EntityId, visitorId: EntityId) {
  return trx
    .selectFrom('visitors')
    .select(['id', 'is_enabled'])
    .where('id', '=', visitorId)
    .where('facility_id', '=', facilityId)
    .where('removed_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * The live, enabled visitors of the facility holding a code: by the code's digest, or the code of
 * visitor `sameAs` (then the visitor itself excepted). Who an ACCESS_CODE_IN_USE answer was about.
 */
export async function visitorsHoldingCode(
  db: Db,
  facilityId: EntityId,
  code: { digest: Buffer } | { sameAs: EntityId },
): Promise<EntityId[]> {
  let query = db
    .selectFrom('visitors as v')
    .select('v.id')
    .where('v.facility_id', '=', facilityId)
    .where('v.is_enabled', '=', true)
    .where('v.removed_at', 'is', null)
    .orderBy('v.id');
  if ('digest' in code) query = query.where('v.access_code_digest', '=', code.digest);
  else
    query = query
      .where('v.id', '<>', code.sameAs)
      .where('v.access_code_digest', '=', (eb) =>
        eb.selectFrom('visitors as s').select('s.access_code_digest').where('s.id', '=', code.sameAs),
      );
  return (await query.execute()).map((row) => row.id);
}

/** Removes a live visitor of the facility (kept, marked removed); undefined when there was none. */
export function removeVisitorRow(trx: Db, facilityId: EntityId, visitorId: EntityId) {
  return trx
    .updateTable('visitors')
    .set({ removed_at: sql`now()`, updated_at: sql`now()` })
    .where('id', '=', visitorId)
    .where('facility_id', '=', facilityId)
    .where('removed_at', 'is', null)
    .returning(['id', 'unit_id'])
    .executeTakeFirst();
}

/** Removes every live visitor of the unit; returns their ids. */
export async function removeUnitVisitors(trx: Db, unitId: EntityId): Promise<EntityId[]> {
  const rows = await trx
    .updateTable('visitors')
    .set({ removed_at: sql`now()`, updated_at: sql`now()` })
    .where('unit_id', '=', unitId)
    .where('removed_at', 'is', null)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

// ---- time groups and access profiles ----

/** The id of the facility's time group `which`, or of its default one. */
export async function findTimeGroupId(
  trx: Db,
  facilityId: EntityId,
  which: number | 'default',
): Promise<number | undefined> {
  let query = trx.selectFrom('time_groups').select('id').where('facility_id', '=', facilityId);
  query = which === 'default' ? query.where('is_default', '=', true) : query.where('id', '=', which);
  return (await query.executeTakeFirst())?.id;
}

/** The id of the facility's access profile `which`, or of its default one. */
export async function findAccessProfileId(
  trx: Db,
  facilityId: EntityId,
  which: number | 'default',
): Promise<number | undefined> {
  let query = trx.selectFrom('access_profiles').select('id').where('facility_id', '=', facilityId);
  query = which === 'default' ? query.where('is_default', '=', true) : query.where('id', '=', which);
  return (await query.executeTakeFirst())?.id;
}

export function selectTimeGroups(db: Db, facilityId: EntityId) {
  return db
    .selectFrom('time_groups')
    .select(['id', 'name', 'is_default', 'windows'])
    .where('facility_id', '=', facilityId)
    .orderBy('id')
    .execute();
}

export function selectAccessProfiles(db: Db, facilityId: EntityId) {
  return db
    .selectFrom('access_profiles')
    .select(['id', 'name', 'is_default', 'access_areas'])
    .where('facility_id', '=', facilityId)
    .orderBy('id')
    .execute();
}

// ---- the gate-code key ----

/** Records the fingerprint of a code key (once). */
export async function recordCodeKey(db: Db, fingerprint: string): Promise<void> {
  await db
    .insertInto('access_code_keys')
    .values({ fingerprint })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** The fingerprint of the first code key recorded: the one the database's codes are sealed with. */
export async function firstCodeKey(db: Db): Promise<string> {
  const row = await db
    .selectFrom('access_code_keys')
    .select('fingerprint')
    .orderBy('created_at')
    .orderBy('fingerprint')
    .executeTakeFirstOrThrow();
  return row.fingerprint;
}

export async function forgetCodeKey(db: Db, fingerprint: string): Promise<void> {
  await db.deleteFrom('access_code_keys').where('fingerprint', '=', fingerprint).execute();
}

// Visitors of a facility (tenants and the people they allow in), with their gate codes; time
// groups and access profiles. A code is write-only: it goes in as digest + sealed copy
// (codes.ts) and comes out only to the controller, inside a command.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { VisibleFacility } from '../auth/guard.ts';
import { AppError, conflict, notFound } from '../errors.ts';
import { accessCodeInUse, inChange, type RefreshResult } from './change.ts';
import type { Db } from '../db/tables.ts';
import type { AccessCodeVault } from './codes.ts';
import { lockCommandSequence, sealedField } from './commands.ts';
import type { AccessControl } from './index.ts';
import { normalizeAccessCode, placeVisitor, switchVisitor, visitorName, type TimeWindow } from './rules.ts';
import { extendedDataText, lockUnit, unitState, unitView, type UnitView } from './units.ts';
import { isEntityId } from '../ids.ts';

export interface VisitorView {
  id: string;
  name: string;
  firstName: string;
  lastName: string;
  unitId: string;
  unitNumber: string;
  isTenant: boolean;
  isPortalVisitor: boolean;
  email: string | null;
  mobilePhoneNumber: string | null;
  timeGroupId: number;
  timeGroupName: string;
  accessProfileId: number;
  accessProfileName: string;
  isEnabled: boolean;
  isLockedOut: boolean;
  extendedData: Record<string, unknown> | null;
}

export interface VisitorInput {
  unitId?: string;
  accessCode?: string | number;
  firstName?: string;
  lastName?: string;
  email?: string | null;
  mobilePhoneNumber?: string | null;
  isTenant?: boolean;
  isPortalVisitor?: boolean;
  timeGroupId?: number | null;
  accessProfileId?: number | null;
  extendedData?: Record<string, unknown> | null;
}

export const visitorNotFound = () => notFound('The visitor');

const visitorQuery = (db: Db) =>
  db
    .selectFrom('visitors as v')
    .innerJoin('units as u', 'u.id', 'v.unit_id')
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

type VisitorRow = Awaited<ReturnType<ReturnType<typeof visitorQuery>['executeTakeFirstOrThrow']>>;

export const visitorView = (r: VisitorRow): VisitorView => ({
  id: r.id,
  name: visitorName(r.first_name, r.last_name),
  firstName: r.first_name,
  lastName: r.last_name,
  unitId: r.unit_id,
  unitNumber: r.unit_number,
  isTenant: r.is_tenant,
  isPortalVisitor: r.is_portal_visitor,
  email: r.email,
  mobilePhoneNumber: r.mobile_phone_number,
  timeGroupId: r.time_group_id,
  timeGroupName: r.time_group_name,
  accessProfileId: r.access_profile_id,
  accessProfileName: r.access_profile_name,
  isEnabled: r.is_enabled,
  // The gate refuses this visitor: disabled, or their unit is Delinquent.
  isLockedOut: !r.is_enabled || r.unit_status === 'Delinquent',
  extendedData: r.extended_data,
});

/** What the controller keeps of a visitor: enough to decide at a keypad, code sealed until delivery. */
export const visitorState = (r: VisitorRow, timeZone: string) => ({
  id: r.id,
  unitId: r.unit_id,
  unitNumber: r.unit_number,
  firstName: r.first_name,
  lastName: r.last_name,
  isTenant: r.is_tenant,
  isEnabled: r.is_enabled,
  timeGroup: { id: r.time_group_id, name: r.time_group_name, timeZone, windows: r.time_group_windows },
  accessProfile: { id: r.access_profile_id, name: r.access_profile_name, accessAreas: r.access_areas },
  ...sealedField(r.access_code_sealed),
});

async function loadVisitor(db: Db, facilityId: string, visitorId: string): Promise<VisitorRow> {
  if (!isEntityId(visitorId)) throw visitorNotFound();
  const row = await visitorQuery(db).where('v.id', '=', visitorId).where('v.facility_id', '=', facilityId).executeTakeFirst();
  if (!row) throw visitorNotFound();
  return row;
}

export async function listVisitors(db: Db, facilityId: string, options: { unitId?: string; limit?: number; offset?: number }): Promise<VisitorView[]> {
  let query = visitorQuery(db).where('v.facility_id', '=', facilityId).orderBy('u.unit_number').orderBy('v.last_name').orderBy('v.first_name').orderBy('v.id');
  if (options.unitId) query = query.where('v.unit_id', '=', options.unitId);
  if (options.limit !== undefined) query = query.limit(options.limit);
  if (options.offset) query = query.offset(options.offset);
  return (await query.execute()).map(visitorView);
}

export async function getVisitor(db: Db, facilityId: string, visitorId: string): Promise<VisitorView> {
  return visitorView(await loadVisitor(db, facilityId, visitorId));
}

// ---- time groups and access profiles ----

async function timeGroupFor(trx: Db, facilityId: string, id: number | null | undefined): Promise<number> {
  let query = trx.selectFrom('time_groups').select('id').where('facility_id', '=', facilityId);
  query = id ? query.where('id', '=', id) : query.where('is_default', '=', true);
  const row = await query.executeTakeFirst();
  if (!row) throw new AppError(404, 'TIME_GROUP_NOT_FOUND', 'The time group was not found at this facility.', [{ path: 'timeGroupId', message: 'is not a time group of this facility' }]);
  return row.id;
}

async function accessProfileFor(trx: Db, facilityId: string, id: number | null | undefined): Promise<number> {
  let query = trx.selectFrom('access_profiles').select('id').where('facility_id', '=', facilityId);
  query = id ? query.where('id', '=', id) : query.where('is_default', '=', true);
  const row = await query.executeTakeFirst();
  if (!row) {
    throw new AppError(404, 'ACCESS_PROFILE_NOT_FOUND', 'The access profile was not found at this facility.', [
      { path: 'accessProfileId', message: 'is not an access profile of this facility' },
    ]);
  }
  return row.id;
}

export async function listTimeGroups(db: Db, facilityId: string): Promise<{ id: number; name: string; isDefault: boolean; windows: TimeWindow[] }[]> {
  const rows = await db.selectFrom('time_groups').select(['id', 'name', 'is_default', 'windows']).where('facility_id', '=', facilityId).orderBy('id').execute();
  return rows.map((r) => ({ id: r.id, name: r.name, isDefault: r.is_default, windows: r.windows }));
}

export async function listAccessProfiles(db: Db, facilityId: string): Promise<{ id: number; name: string; isDefault: boolean; accessAreas: string[] | null }[]> {
  const rows = await db.selectFrom('access_profiles').select(['id', 'name', 'is_default', 'access_areas']).where('facility_id', '=', facilityId).orderBy('id').execute();
  return rows.map((r) => ({ id: r.id, name: r.name, isDefault: r.is_default, accessAreas: r.access_areas }));
}

// ---- changes ----

function codeColumns(vault: AccessCodeVault, facilityId: string, visitorId: string, accessCode: string | number) {
  // The schema admits only codes; normalizeAccessCode is the same rule, applied to the value kept.
  const code = normalizeAccessCode(accessCode);
  if (code === null) throw new AppError(400, 'VALIDATION_FAILED', 'The request has invalid fields.', [{ path: 'accessCode', message: ACCESS_CODE_RULE }]);
  return { access_code_digest: vault.digest(facilityId, code), access_code_sealed: vault.seal(visitorId, code) };
}

export const ACCESS_CODE_RULE = 'must be 1 to 10 digits, as a string of digits or a whole number';

const blankToNull = (value: string | null | undefined) => (value === undefined ? undefined : value === null || value.trim() === '' ? null : value.trim());

export async function createVisitor(
  ac: AccessControl,
  facility: VisibleFacility,
  input: Required<Pick<VisitorInput, 'unitId' | 'accessCode' | 'firstName' | 'lastName' | 'isTenant'>> & VisitorInput,
  suppressCommands: boolean,
): Promise<{ visitor: VisitorView; unit: UnitView }> {
  const id = randomUUID();
  const code = codeColumns(ac.vault, facility.id, id, input.accessCode);
  const extended = extendedDataText(input.extendedData);
  return inChange(ac, facility.id, suppressCommands, async ({ trx, command }) => {
    const unit = await lockUnit(trx, facility.id, input.unitId, 'unitId');
    const placement = placeVisitor(unit.status, input.isTenant);
    if (!placement.ok) throw conflict(placement.code, placement.reason);
    const [timeGroupId, accessProfileId] = [await timeGroupFor(trx, facility.id, input.timeGroupId), await accessProfileFor(trx, facility.id, input.accessProfileId)];
    await trx
      .insertInto('visitors')
      .values({
        id,
        facility_id: facility.id,
        unit_id: unit.id,
        first_name: input.firstName.trim(),
        last_name: input.lastName.trim(),
        email: blankToNull(input.email) ?? null,
        mobile_phone_number: blankToNull(input.mobilePhoneNumber) ?? null,
        is_tenant: input.isTenant,
        is_portal_visitor: input.isPortalVisitor ?? false,
        time_group_id: timeGroupId,
        access_profile_id: accessProfileId,
        extended_data: extended,
        ...code,
      })
      .execute();
    const unitRow = placement.value.changed
      ? await trx.updateTable('units').set({ status: placement.value.status!, updated_at: sql`now()` }).where('id', '=', unit.id).returning(['id', 'facility_id', 'unit_number', 'status', 'extended_data']).executeTakeFirstOrThrow()
      : unit;
    const row = await loadVisitor(trx, facility.id, id);
    await command('visitor.upsert', { action: 'create', visitor: visitorState(row, facility.timeZone), unit: unitState(unitRow) });
    return { visitor: visitorView(row), unit: unitView(unitRow) };
  });
}

/**
 * Changes the fields given (absent fields keep their value; timeGroupId/accessProfileId 0 or
 * null mean the facility's default; extendedData is replaced whole). Moving to another unit
 * follows the placement rule. An update always sends the visitor's state to the controller.
 */
export async function updateVisitor(ac: AccessControl, facility: VisibleFacility, visitorId: string, input: VisitorInput, suppressCommands: boolean): Promise<VisitorView> {
  const current = await loadVisitor(ac.db, facility.id, visitorId);
  const code = input.accessCode === undefined ? {} : codeColumns(ac.vault, facility.id, current.id, input.accessCode);
  const extended = input.extendedData === undefined ? undefined : extendedDataText(input.extendedData);
  return inChange(ac, facility.id, suppressCommands, async ({ trx, command }) => {
    // Lock order everywhere: units (by id), then visitors — never the other way round.
    const targetUnitId = input.unitId ?? current.unit_id;
    const unitIds = [...new Set([current.unit_id, targetUnitId])].sort();
    const locked = new Map<string, Awaited<ReturnType<typeof lockUnit>>>();
    for (const unitId of unitIds) locked.set(unitId, await lockUnit(trx, facility.id, unitId, unitId === targetUnitId ? 'unitId' : undefined));
    const still = await trx.selectFrom('visitors').select(['unit_id', 'is_tenant']).where('id', '=', current.id).where('removed_at', 'is', null).forUpdate().executeTakeFirst();
    if (!still) throw visitorNotFound();
    if (still.unit_id !== current.unit_id) throw conflict('CONCURRENT_CHANGE', 'The visitor was changed by another request at the same moment; retry the request.');

    const target = locked.get(targetUnitId)!;
    const isTenant = input.isTenant ?? still.is_tenant;
    let unitRow = target;
    if (targetUnitId !== current.unit_id || isTenant !== still.is_tenant) {
      const placement = placeVisitor(target.status, isTenant);
      if (!placement.ok) throw conflict(placement.code, placement.reason);
      if (placement.value.changed) {
        unitRow = await trx
          .updateTable('units')
          .set({ status: placement.value.status!, updated_at: sql`now()` })
          .where('id', '=', target.id)
          .returning(['id', 'facility_id', 'unit_number', 'status', 'extended_data'])
          .executeTakeFirstOrThrow();
      }
    }
    await trx
      .updateTable('visitors')
      .set({
        unit_id: targetUnitId,
        ...(input.firstName !== undefined ? { first_name: input.firstName.trim() } : {}),
        ...(input.lastName !== undefined ? { last_name: input.lastName.trim() } : {}),
        ...(input.email !== undefined ? { email: blankToNull(input.email) ?? null } : {}),
        ...(input.mobilePhoneNumber !== undefined ? { mobile_phone_number: blankToNull(input.mobilePhoneNumber) ?? null } : {}),
        is_tenant: isTenant,
        ...(input.isPortalVisitor !== undefined ? { is_portal_visitor: input.isPortalVisitor } : {}),
        ...(input.timeGroupId !== undefined ? { time_group_id: await timeGroupFor(trx, facility.id, input.timeGroupId) } : {}),
        ...(input.accessProfileId !== undefined ? { access_profile_id: await accessProfileFor(trx, facility.id, input.accessProfileId) } : {}),
        ...(extended !== undefined ? { extended_data: extended } : {}),
        ...code,
        updated_at: sql`now()`,
      })
      .where('id', '=', current.id)
      .execute();
    const row = await loadVisitor(trx, facility.id, current.id);
    await command('visitor.upsert', { action: 'update', visitor: visitorState(row, facility.timeZone), unit: unitState(unitRow) });
    return visitorView(row);
  });
}

/** Removes the visitor: their code stops opening the gate. */
export async function removeVisitor(ac: AccessControl, facility: VisibleFacility, visitorId: string, suppressCommands: boolean): Promise<void> {
  if (!isEntityId(visitorId)) throw visitorNotFound();
  await inChange(ac, facility.id, suppressCommands, async ({ trx, command }) => {
    const row = await trx
      .updateTable('visitors')
      .set({ removed_at: sql`now()`, updated_at: sql`now()` })
      .where('id', '=', visitorId)
      .where('facility_id', '=', facility.id)
      .where('removed_at', 'is', null)
      .returning(['id', 'unit_id'])
      .executeTakeFirst();
    if (!row) throw visitorNotFound();
    await command('visitor.remove', { action: 'remove', visitorId: row.id, unitId: row.unit_id });
  });
}

/**
 * disable locks the visitor out, enable restores them. Enabling needs the visitor's code to be
 * free among the facility's enabled visitors (it may have been given to someone meanwhile).
 */
export async function switchVisitorAccess(ac: AccessControl, facility: VisibleFacility, visitorId: string, action: 'disable' | 'enable', suppressCommands: boolean): Promise<VisitorView> {
  if (!isEntityId(visitorId)) throw visitorNotFound();
  return inChange(ac, facility.id, suppressCommands, async ({ trx, command }) => {
    const current = await trx.selectFrom('visitors').select(['id', 'is_enabled']).where('id', '=', visitorId).where('facility_id', '=', facility.id).where('removed_at', 'is', null).forUpdate().executeTakeFirst();
    if (!current) throw visitorNotFound();
    const next = switchVisitor(current.is_enabled, action);
    if (next.changed) {
      try {
        await trx.updateTable('visitors').set({ is_enabled: next.isEnabled, updated_at: sql`now()` }).where('id', '=', current.id).execute();
      } catch (error) {
        const pgError = error as { code?: string; constraint?: string };
        if (pgError.code === '23505' && pgError.constraint === 'visitors_enabled_access_code') {
          throw new AppError(409, 'ACCESS_CODE_IN_USE', "Another enabled visitor of this facility now has this visitor's access code; give this visitor a new code (update) before enabling it.");
        }
        throw error;
      }
    }
    const row = await loadVisitor(trx, facility.id, current.id);
    if (next.changed) await command('visitor.upsert', { action, visitor: visitorState(row, facility.timeZone), unit: { id: row.unit_id, unitNumber: row.unit_number, status: row.unit_status } });
    return visitorView(row);
  });
}

/** One command with every visitor of the facility (codes sealed): the controller replaces its visitors with them. */
export async function refreshVisitors(ac: AccessControl, facility: VisibleFacility): Promise<RefreshResult> {
  return inChange(ac, facility.id, false, async ({ trx, command }) => {
    await lockCommandSequence(trx, facility.id);
    const rows = await visitorQuery(trx).where('v.facility_id', '=', facility.id).orderBy('u.unit_number').orderBy('v.id').execute();
    const written = await command('visitors.refresh', { action: 'refresh', visitors: rows.map((r) => visitorState(r, facility.timeZone)) });
    return { command: { ...written!, type: 'visitors.refresh', status: 'pending' }, count: rows.length };
  });
}

export { accessCodeInUse };

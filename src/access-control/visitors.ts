// Visitors of a facility (tenants and the people they allow in), with their gate codes: create,
// update, remove, disable/enable, and reads. A code is write-only: it goes in as digest + sealed
// copy (codes.ts) and comes out only to the controller, inside a command.
import { randomUUID } from 'node:crypto';
import type { Updateable } from 'kysely';
import type { VisibleFacility } from '../auth/guard.ts';
import type { Db } from '../db/tables.ts';
import { AppError, conflict, notFound, validationFailed } from '../errors.ts';
import { isEntityId } from '../ids.ts';
import { resolveAccessProfile } from './access-profiles.ts';
import { inChange, violates } from './change.ts';
import type { AccessCodeVault } from './codes.ts';
import { sealedField } from './commands.ts';
import type { AccessControl } from './index.ts';
import * as repo from './repository.ts';
import type { UnitRow, VisitorRow } from './repository.ts';
import { ACCESS_CODE_RULE, normalizeAccessCode, placeVisitor, switchVisitor, visitorName } from './rules.ts';
import type { VisitorsTable } from './tables.ts';
import { resolveTimeGroup } from './time-groups.ts';
import { extendedDataText, getUnit, lockUnit, unitState, unitView, type UnitView } from './units.ts';

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

/** A live visitor of the facility; 404 otherwise. */
async function loadVisitor(db: Db, facilityId: string, visitorId: string): Promise<VisitorRow> {
  if (!isEntityId(visitorId)) throw visitorNotFound();
  const row = await repo.findVisitor(db, facilityId, visitorId);
  if (!row) throw visitorNotFound();
  return row;
}

export async function listVisitors(
  db: Db,
  facilityId: string,
  options: { unitId?: string; limit?: number; offset?: number },
): Promise<VisitorView[]> {
  return (await repo.selectVisitors(db, facilityId, options)).map(visitorView);
}

/** The visitors of a live unit of the facility; 404 for another unit. */
export async function listUnitVisitors(db: Db, facilityId: string, unitId: string): Promise<VisitorView[]> {
  const unit = await getUnit(db, facilityId, unitId);
  return listVisitors(db, unit.facilityId, { unitId: unit.id });
}

export async function getVisitor(db: Db, facilityId: string, visitorId: string): Promise<VisitorView> {
  return visitorView(await loadVisitor(db, facilityId, visitorId));
}

// ---- changes ----

/** The stored forms of a gate code: its digest (the uniqueness rule) and its sealed copy. */
function codeColumns(vault: AccessCodeVault, facilityId: string, visitorId: string, accessCode: string | number) {
  // The schema admits only codes; normalizeAccessCode is the same rule, applied to the value kept.
  const code = normalizeAccessCode(accessCode);
  if (code === null) throw validationFailed([{ path: 'accessCode', message: ACCESS_CODE_RULE }]);
  return { access_code_digest: vault.digest(facilityId, code), access_code_sealed: vault.seal(visitorId, code) };
}

const blankToNull = (value: string | null | undefined) =>
  value === undefined ? undefined : value === null || value.trim() === '' ? null : value.trim();

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
    const timeGroupId = await resolveTimeGroup(trx, facility.id, input.timeGroupId);
    const accessProfileId = await resolveAccessProfile(trx, facility.id, input.accessProfileId);
    await repo.insertVisitor(trx, {
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
    });
    const unitRow = placement.value.changed ? await repo.setUnitStatus(trx, unit.id, placement.value.status!) : unit;
    const row = await loadVisitor(trx, facility.id, id);
    const visitor = visitorState(row, facility.timeZone);
    await command('visitor.upsert', { action: 'create', visitor, unit: unitState(unitRow) });
    return { visitor: visitorView(row), unit: unitView(unitRow) };
  });
}

/**
 * Changes the fields given (absent fields keep their value; timeGroupId/accessProfileId 0 or
 * null mean the facility's default; extendedData is replaced whole). Moving to another unit
 * follows the placement rule. An update always sends the visitor's state to the controller.
 */
export async function updateVisitor(
  ac: AccessControl,
  facility: VisibleFacility,
  visitorId: string,
  input: VisitorInput,
  suppressCommands: boolean,
): Promise<VisitorView> {
  const current = await loadVisitor(ac.db, facility.id, visitorId);
  const code = input.accessCode === undefined ? {} : codeColumns(ac.vault, facility.id, current.id, input.accessCode);
  const extended = input.extendedData === undefined ? undefined : extendedDataText(input.extendedData);
  return inChange(ac, facility.id, suppressCommands, async ({ trx, command }) => {
    // Lock order everywhere: units (by id), then visitors — never the other way round.
    const targetUnitId = input.unitId ?? current.unit_id;
    const unitIds = [...new Set([current.unit_id, targetUnitId])].sort();
    const locked = new Map<string, UnitRow>();
    for (const unitId of unitIds) {
      locked.set(unitId, await lockUnit(trx, facility.id, unitId, unitId === targetUnitId ? 'unitId' : undefined));
    }
    const still = await repo.lockVisitorPlacement(trx, current.id);
    if (!still) throw visitorNotFound();
    if (still.unit_id !== current.unit_id) {
      throw conflict(
        'CONCURRENT_CHANGE',
        'The visitor was changed by another request at the same moment; retry the request.',
      );
    }

    const target = locked.get(targetUnitId)!;
    const isTenant = input.isTenant ?? still.is_tenant;
    let unitRow = target;
    if (targetUnitId !== current.unit_id || isTenant !== still.is_tenant) {
      const placement = placeVisitor(target.status, isTenant);
      if (!placement.ok) throw conflict(placement.code, placement.reason);
      if (placement.value.changed) unitRow = await repo.setUnitStatus(trx, target.id, placement.value.status!);
    }
    const changes: Updateable<VisitorsTable> = {
      unit_id: targetUnitId,
      ...(input.firstName !== undefined ? { first_name: input.firstName.trim() } : {}),
      ...(input.lastName !== undefined ? { last_name: input.lastName.trim() } : {}),
      ...(input.email !== undefined ? { email: blankToNull(input.email) ?? null } : {}),
      ...(input.mobilePhoneNumber !== undefined
        ? { mobile_phone_number: blankToNull(input.mobilePhoneNumber) ?? null }
        : {}),
      is_tenant: isTenant,
      ...(input.isPortalVisitor !== undefined ? { is_portal_visitor: input.isPortalVisitor } : {}),
      ...(input.timeGroupId !== undefined
        ? { time_group_id: await resolveTimeGroup(trx, facility.id, input.timeGroupId) }
        : {}),
      ...(input.accessProfileId !== undefined
        ? { access_profile_id: await resolveAccessProfile(trx, facility.id, input.accessProfileId) }
        : {}),
      ...(extended !== undefined ? { extended_data: extended } : {}),
      ...code,
    };
    await repo.updateVisitorRow(trx, current.id, changes);
    const row = await loadVisitor(trx, facility.id, current.id);
    const visitor = visitorState(row, facility.timeZone);
    await command('visitor.upsert', { action: 'update', visitor, unit: unitState(unitRow) });
    return visitorView(row);
  });
}

/** Removes the visitor: their code stops opening the gate. */
export async function removeVisitor(
  ac: AccessControl,
  facility: VisibleFacility,
  visitorId: string,
  suppressCommands: boolean,
): Promise<void> {
  if (!isEntityId(visitorId)) throw visitorNotFound();
  await inChange(ac, facility.id, suppressCommands, async ({ trx, command }) => {
    const row = await repo.removeVisitorRow(trx, facility.id, visitorId);
    if (!row) throw visitorNotFound();
    await command('visitor.remove', { action: 'remove', visitorId: row.id, unitId: row.unit_id });
  });
}

/** Enabling a visitor whose code another enabled visitor was given meanwhile. */
const codeTakenMeanwhile = () =>
  new AppError(
    409,
    'ACCESS_CODE_IN_USE',
    "Another enabled visitor of this facility now has this visitor's access code; " +
      'give this visitor a new code (update) before enabling it.',
  );

/**
 * disable locks the visitor out, enable restores them. Enabling needs the visitor's code to be
 * free among the facility's enabled visitors (it may have been given to someone meanwhile).
 */
export async function switchVisitorAccess(
  ac: AccessControl,
  facility: VisibleFacility,
  visitorId: string,
  action: 'disable' | 'enable',
  suppressCommands: boolean,
): Promise<VisitorView> {
  if (!isEntityId(visitorId)) throw visitorNotFound();
  return inChange(ac, facility.id, suppressCommands, async ({ trx, command }) => {
    const current = await repo.lockVisitorSwitch(trx, facility.id, visitorId);
    if (!current) throw visitorNotFound();
    const next = switchVisitor(current.is_enabled, action);
    if (next.changed) {
      try {
        await repo.updateVisitorRow(trx, current.id, { is_enabled: next.isEnabled });
      } catch (error) {
        if (violates(error, 'visitors_enabled_access_code')) throw codeTakenMeanwhile();
        throw error;
      }
    }
    const row = await loadVisitor(trx, facility.id, current.id);
    if (next.changed) {
      const unit = unitState({ id: row.unit_id, unit_number: row.unit_number, status: row.unit_status });
      await command('visitor.upsert', { action, visitor: visitorState(row, facility.timeZone), unit });
    }
    return visitorView(row);
  });
}

// Visitors of a facility (tenants and the people they allow in), with their gate codes: create,
// update, remove, disable/enable, and reads. A new code must follow the facility's rules (judged
// first, before anything is written or counted); it goes in as digest + sealed copy (codes.ts) and
// comes out to the controller, inside a command, and to a reader holding accesscontrol:codes,
// audited (code-reads.ts). A change that sets a code and meets it in use is audited the same way,
// and throttled per credential (code-conflicts.ts).
import type { Updateable } from 'kysely';
import type { VisibleFacility } from '../http/caller.ts';
import { sealedField } from '../commands/index.ts';
import type { Db } from '../db/tables.ts';
import { AppError, concurrentChange, conflict, type FieldError, notFound, validationFailed } from '../errors.ts';
import { type EntityId, isEntityId } from '../ids.ts';
import { resolveAccessProfile } from './access-profiles.ts';
import { inChange, violates } from './change.ts';
import type { AccessCodeVault } from './codes.ts';
import type { CodeHolders } from './code-conflicts.ts';
import { type Reader, withCodes } from './code-reads.ts';
import type { AccessControlParts } from './deps.ts';
import * as repo from './repository.ts';
import type { UnitRow, VisitorRow } from './repository.ts';
import { judgeAccessCode, placeVisitor, switchVisitor, visitorName } from './rules.ts';
import type { VisitorsTable } from './tables.ts';
import { resolveTimeGroup } from './time-groups.ts';
import { extendedDataText, getUnit, lockUnit, type UnitState, unitState, unitView, type UnitView } from './units.ts';

export interface VisitorView {
  id: EntityId;
  name: string;
  firstName: string;
  lastName: string;
  /** Null for a visitor who is not a tenant and has no unit (a portal visitor, a facility-wide guest). */
  unitId: EntityId | null;
  unitNumber: string | null;
  isTenant: boolean;
  isPortalVisitor: boolean;
  email: string | null;
  mobilePhoneNumber: string | null;
  contactMethodPreference: string | null;
  countryCode: string | null;
  timeGroupId: number;
  timeGroupName: string;
  accessProfileId: number;
  accessProfileName: string;
  isEnabled: boolean;
  isLockedOut: boolean;
  extendedData: Record<string, unknown>;
  /** Only for a reader holding accesscontrol:codes (code-reads.ts). */
  code?: string;
}

export interface VisitorInput {
  /** null: no unit (only for a visitor who is not a tenant). */
  unitId?: EntityId | null;
  accessCode?: string | number;
  firstName?: string;
  lastName?: string;
  email?: string | null;
  mobilePhoneNumber?: string | null;
  contactMethodPreference?: string | null;
  countryCode?: string | null;
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
  contactMethodPreference: r.contact_method_preference,
  countryCode: r.country_code,
  timeGroupId: r.time_group_id,
  timeGroupName: r.time_group_name,
  accessProfileId: r.access_profile_id,
  accessProfileName: r.access_profile_name,
  isEnabled: r.is_enabled,
  // The gate refuses this visitor: disabled, or their unit is Delinquent.
  isLockedOut: !r.is_enabled || r.unit_status === 'Delinquent',
  extendedData: r.extended_data ?? {},
});

/** The visitor's unit as the controller keeps it; null for a visitor without one. */
const unitOfVisitor = (r: VisitorRow): UnitState | null =>
  r.unit_id === null ? null : unitState({ id: r.unit_id, unit_number: r.unit_number!, status: r.unit_status! });

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
async function loadVisitor(db: Db, facilityId: EntityId, visitorId: EntityId): Promise<VisitorRow> {
  if (!isEntityId(visitorId)) throw visitorNotFound();
  const row = await repo.findVisitor(db, facilityId, visitorId);
  if (!row) throw visitorNotFound();
  return row;
}

/**
 * The facility's visitors: of one unit (by id or by unit number — a unit number that names no
 * live unit has no visitors), a page of them when asked; codes for a reader with the scope.
 */
export async function listVisitors(
  ac: AccessControlParts,
  facility: VisibleFacility,
  reader: Reader,
  options: { unitId?: EntityId; unitNumber?: string; limit?: number; offset?: number },
): Promise<VisitorView[]> {
  const rows = await repo.selectVisitors(ac.db, facility.id, options);
  return withCodes(ac.db, ac.vault, facility.id, reader, rows, rows.map(visitorView));
}

/** The visitors of a live unit of the facility; 404 for another unit. */
export async function listUnitVisitors(
  ac: AccessControlParts,
  facility: VisibleFacility,
  reader: Reader,
  unitId: EntityId,
): Promise<VisitorView[]> {
  const unit = await getUnit(ac.db, facility, unitId);
  return listVisitors(ac, facility, reader, { unitId: unit.id });
}

export async function getVisitor(
  ac: AccessControlParts,
  facility: VisibleFacility,
  reader: Reader,
  visitorId: EntityId,
): Promise<VisitorView> {
  const row = await loadVisitor(ac.db, facility.id, visitorId);
  return (await withCodes(ac.db, ac.vault, facility.id, reader, [row], [visitorView(row)]))[0]!;
}

// ---- changes ----

/**
 * A code a change sends, judged by the facility's rules: the code as kept, or the fault naming
 * accessCode. The visitor's own code sent again (`current`) is not a new code: never re-checked.
 */
function codeFault(
  vault: AccessCodeVault,
  facility: VisibleFacility,
  sent: unknown,
  current?: VisitorRow,
): { code: string; fault: null } | { code: null; fault: FieldError } {
  const judged = judgeAccessCode(
    sent,
    facility.accessCodeRules,
    current && vault.unseal(current.id, current.access_code_sealed),
  );
  return judged.ok
    ? { code: judged.value, fault: null }
    : { code: null, fault: { path: 'accessCode', message: judged.reason } };
}

/** The code a change sends, as kept, when it may be kept (codeFault); else a 400 naming accessCode. */
function acceptedCode(vault: AccessCodeVault, facility: VisibleFacility, sent: unknown, current?: VisitorRow): string {
  const { code, fault } = codeFault(vault, facility, sent, current);
  if (fault) throw validationFailed([fault]);
  return code;
}

/**
 * What a 400 of a visitor change says of its code when the schema refused the request for other
 * fields (the code within the schema's widest bound): the facility's rules, checked as the operation
 * would, so that one answer names every bad field. Null when the code is not at fault.
 */
export async function accessCodeFault(
  ac: AccessControlParts,
  facility: VisibleFacility,
  sent: unknown,
  visitorId?: EntityId,
): Promise<FieldError | null> {
  if (sent === undefined) return null;
  const current =
    visitorId !== undefined && isEntityId(visitorId)
      ? await repo.findVisitor(ac.db, facility.id, visitorId)
      : undefined;
  return codeFault(ac.vault, facility, sent, current).fault;
}

/** The stored forms of a gate code (as kept): its digest (the uniqueness rule) and its sealed copy. */
const codeColumns = (vault: AccessCodeVault, facilityId: EntityId, visitorId: EntityId, code: string) => ({
  access_code_digest: vault.digest(facilityId, code),
  access_code_sealed: vault.seal(visitorId, code),
});

/** Who holds the code a change asked for, when the change met it in use. */
const holdersOf =
  (ac: AccessControlParts, facilityId: EntityId, code: string): CodeHolders =>
  (db) =>
    repo.visitorsHoldingCode(db, facilityId, { digest: ac.vault.digest(facilityId, code) });

const blankToNull = (value: string | null | undefined) =>
  value === undefined ? undefined : value === null || value.trim() === '' ? null : value.trim();

/** A tenant is placed on a unit; only a visitor who is not a tenant may have none. */
const tenantNeedsUnit: FieldError = { path: 'unitId', message: 'is required for a tenant (isTenant true)' };

export async function createVisitor(
  ac: AccessControlParts,
  facility: VisibleFacility,
  writer: Reader,
  input: Required<Pick<VisitorInput, 'accessCode' | 'firstName' | 'lastName' | 'isTenant'>> & VisitorInput,
  suppressCommands: boolean,
): Promise<{ visitor: VisitorView; unit: UnitView | null }> {
  const unitId = input.unitId ?? null;
  // The code first, with the other faults of the request: nothing is written or counted for a code the
  // facility's rules refuse.
  const { code, fault } = codeFault(ac.vault, facility, input.accessCode);
  const faults: FieldError[] = fault ? [fault] : [];
  if (unitId === null && input.isTenant) faults.push(tenantNeedsUnit);
  if (code === null || faults.length > 0) throw validationFailed(faults);
  const extended = extendedDataText(input.extendedData);
  const holders = holdersOf(ac, facility.id, code);
  return ac.codeConflicts.guard(ac.db, facility, writer, holders, () =>
    inChange(ac, facility.id, suppressCommands, async ({ trx, command }) => {
      let unit: UnitRow | null = null;
      if (unitId !== null) {
        unit = await lockUnit(trx, facility.id, unitId, 'unitId');
        const placement = placeVisitor(unit.status, input.isTenant);
        if (!placement.ok) throw conflict(placement.code, placement.reason);
        if (placement.value.changed) unit = await repo.setUnitStatus(trx, unit.id, placement.value.status!);
      }
      const timeGroupId = await resolveTimeGroup(trx, facility.id, input.timeGroupId);
      const accessProfileId = await resolveAccessProfile(trx, facility.id, input.accessProfileId);
      // The id first: the sealed code is bound to it.
      const id = await repo.nextVisitorId(trx);
      await repo.insertVisitor(trx, {
        id,
        facility_id: facility.id,
        unit_id: unit?.id ?? null,
        first_name: input.firstName.trim(),
        last_name: input.lastName.trim(),
        email: blankToNull(input.email) ?? null,
        mobile_phone_number: blankToNull(input.mobilePhoneNumber) ?? null,
        contact_method_preference: blankToNull(input.contactMethodPreference) ?? null,
        country_code: blankToNull(input.countryCode) ?? null,
        is_tenant: input.isTenant,
        is_portal_visitor: input.isPortalVisitor ?? false,
        time_group_id: timeGroupId,
        access_profile_id: accessProfileId,
        extended_data: extended,
        ...codeColumns(ac.vault, facility.id, id, code),
      });
      const row = await loadVisitor(trx, facility.id, id);
      const visitor = visitorState(row, facility.timeZone);
      await command('visitor.upsert', { action: 'create', visitor, unit: unit && unitState(unit) });
      return { visitor: visitorView(row), unit: unit && unitView(unit, facility) };
    }),
  );
}

/**
 * Changes the fields given (absent fields keep their value; timeGroupId/accessProfileId 0 or
 * null mean the facility's default; extendedData is replaced whole). Moving to another unit
 * follows the placement rule. An update always sends the visitor's state to the controller.
 */
export async function updateVisitor(
  ac: AccessControlParts,
  facility: VisibleFacility,
  writer: Reader,
  visitorId: EntityId,
  input: VisitorInput,
  suppressCommands: boolean,
): Promise<VisitorView> {
  const current = await loadVisitor(ac.db, facility.id, visitorId);
  const sentCode = input.accessCode === undefined ? null : acceptedCode(ac.vault, facility, input.accessCode, current);
  const code = sentCode === null ? {} : codeColumns(ac.vault, facility.id, current.id, sentCode);
  const extended = input.extendedData === undefined ? undefined : extendedDataText(input.extendedData);
  const change = () =>
    inChange(ac, facility.id, suppressCommands, async ({ trx, command }) => {
      // Lock order everywhere: units (by id), then visitors — never the other way round.
      const targetUnitId = input.unitId === undefined ? current.unit_id : input.unitId;
      const isTenant = input.isTenant ?? current.is_tenant;
      if (targetUnitId === null && isTenant) throw validationFailed([tenantNeedsUnit]);
      const unitIds = [...new Set([current.unit_id, targetUnitId])]
        .filter((id): id is EntityId => id !== null)
        .sort((a, b) => a - b);
      const locked = new Map<EntityId, UnitRow>();
      for (const unitId of unitIds) {
        locked.set(unitId, await lockUnit(trx, facility.id, unitId, unitId === targetUnitId ? 'unitId' : undefined));
      }
      const still = await repo.lockVisitorPlacement(trx, current.id);
      if (!still) throw visitorNotFound();
      if (still.unit_id !== current.unit_id) {
        throw concurrentChange('The visitor was changed by another request at the same moment; retry the request.');
      }

      let unitRow = targetUnitId === null ? null : locked.get(targetUnitId)!;
      if (unitRow && (targetUnitId !== current.unit_id || isTenant !== still.is_tenant)) {
        const placement = placeVisitor(unitRow.status, isTenant);
        if (!placement.ok) throw conflict(placement.code, placement.reason);
        if (placement.value.changed) unitRow = await repo.setUnitStatus(trx, unitRow.id, placement.value.status!);
      }
      const changes: Updateable<VisitorsTable> = {
        unit_id: targetUnitId,
        ...(input.firstName !== undefined ? { first_name: input.firstName.trim() } : {}),
        ...(input.lastName !== undefined ? { last_name: input.lastName.trim() } : {}),
        ...(input.email !== undefined ? { email: blankToNull(input.email) ?? null } : {}),
        ...(input.mobilePhoneNumber !== undefined
          ? { mobile_phone_number: blankToNull(input.mobilePhoneNumber) ?? null }
          : {}),
        ...(input.contactMethodPreference !== undefined
          ? { contact_method_preference: blankToNull(input.contactMethodPreference) ?? null }
          : {}),
        ...(input.countryCode !== undefined ? { country_code: blankToNull(input.countryCode) ?? null } : {}),
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
      await command('visitor.upsert', { action: 'update', visitor, unit: unitRow && unitState(unitRow) });
      return visitorView(row);
    });
  // Only a code sent can meet one in use.
  if (sentCode === null) return change();
  return ac.codeConflicts.guard(ac.db, facility, writer, holdersOf(ac, facility.id, sentCode), change);
}

/** Removes the visitor: their code stops opening the gate. */
export async function removeVisitor(
  ac: AccessControlParts,
  facility: VisibleFacility,
  visitorId: EntityId,
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
  ac: AccessControlParts,
  facility: VisibleFacility,
  writer: Reader,
  visitorId: EntityId,
  action: 'disable' | 'enable',
  suppressCommands: boolean,
): Promise<VisitorView> {
  if (!isEntityId(visitorId)) throw visitorNotFound();
  const change = () =>
    inChange(ac, facility.id, suppressCommands, async ({ trx, command }) => {
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
        await command('visitor.upsert', {
          action,
          visitor: visitorState(row, facility.timeZone),
          unit: unitOfVisitor(row),
        });
      }
      return visitorView(row);
    });
  // Enabling meets the visitor's code in use when another enabled visitor was given it meanwhile.
  if (action === 'disable') return change();
  const holders: CodeHolders = (db) => repo.visitorsHoldingCode(db, facility.id, { sameAs: visitorId });
  return ac.codeConflicts.guard(ac.db, facility, writer, holders, change);
}

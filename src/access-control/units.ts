// Units of a facility: create, the state actions (disable, enable, vacate, delete) and reads. Each
// change writes its command in the same transaction (change.ts); the SQL is in repository.ts.
import type { VisibleFacility } from '../http/caller.ts';
import type { Db } from '../db/tables.ts';
import { AppError, conflict, validationFailed } from '../errors.ts';
import { type EntityId, isEntityId } from '../ids.ts';
import { inChange } from './change.ts';
import type { AccessControlParts } from './deps.ts';
import * as repo from './repository.ts';
import type { UnitRow } from './repository.ts';
import { decideUnitAction, EXTENDED_DATA_MAX_BYTES, type UnitAction, type UnitStatus } from './rules.ts';

export interface UnitView {
  id: EntityId;
  unitNumber: string;
  status: UnitStatus;
  facilityId: EntityId;
  /** The facility's: PMS tools show a unit with the property it belongs to. */
  propertyNumber: string | null;
  extendedData: Record<string, unknown>;
}

/** What the controller keeps of a unit. */
export interface UnitState {
  id: EntityId;
  unitNumber: string;
  status: UnitStatus;
}

export const unitView = (r: UnitRow, facility: Pick<VisibleFacility, 'propertyNumber'>): UnitView => ({
  id: r.id,
  unitNumber: r.unit_number,
  status: r.status,
  facilityId: r.facility_id,
  propertyNumber: facility.propertyNumber,
  extendedData: r.extended_data ?? {},
});

export const unitState = (r: Pick<UnitRow, 'id' | 'unit_number' | 'status'>): UnitState => ({
  id: r.id,
  unitNumber: r.unit_number,
  status: r.status,
});

export const unitNotFound = (path?: string) =>
  new AppError(
    404,
    'UNIT_NOT_FOUND',
    'The unit was not found at this facility.',
    path ? [{ path, message: 'is not a unit of this facility' }] : [],
  );

/** A live unit of the facility, locked for the rest of the transaction; 404 otherwise (naming `path`). */
export async function lockUnit(trx: Db, facilityId: EntityId, unitId: EntityId, path?: string): Promise<UnitRow> {
  if (!isEntityId(unitId)) throw unitNotFound(path);
  const row = await repo.lockUnitRow(trx, facilityId, unitId);
  if (!row) throw unitNotFound(path);
  return row;
}

/** extendedData as stored: any JSON object (null values kept), at most 16 KiB as JSON. */
export function extendedDataText(
  value: Record<string, unknown> | null | undefined,
  path = 'extendedData',
): string | null {
  if (value === undefined || value === null) return null;
  const text = JSON.stringify(value);
  if (Buffer.byteLength(text) > EXTENDED_DATA_MAX_BYTES) {
    throw validationFailed([{ path, message: `must be at most ${EXTENDED_DATA_MAX_BYTES} bytes as JSON` }]);
  }
  return text;
}

export async function listUnits(
  db: Db,
  facility: VisibleFacility,
  page: { limit?: number; offset?: number },
): Promise<UnitView[]> {
  return (await repo.selectUnits(db, facility.id, page)).map((row) => unitView(row, facility));
}

/** A live unit of the facility; 404 otherwise. */
export async function getUnit(db: Db, facility: VisibleFacility, unitId: EntityId): Promise<UnitView> {
  if (!isEntityId(unitId)) throw unitNotFound();
  const row = await repo.findUnit(db, facility.id, unitId);
  if (!row) throw unitNotFound();
  return unitView(row, facility);
}

export async function createUnit(
  ac: AccessControlParts,
  facility: VisibleFacility,
  input: { unitNumber: string; extendedData?: Record<string, unknown> | null },
  suppressCommands: boolean,
): Promise<UnitView> {
  const unitNumber = input.unitNumber.trim();
  if (unitNumber.length === 0) throw validationFailed([{ path: 'unitNumber', message: 'must not be blank' }]);
  const extended = extendedDataText(input.extendedData);
  return inChange(ac, facility.id, suppressCommands, async ({ trx, command }) => {
    const row = await repo.insertUnit(trx, facility.id, unitNumber, extended);
    await command('unit.upsert', { action: 'create', unit: unitState(row) });
    return unitView(row, facility);
  });
}

/**
 * disable · enable · vacate · delete, by the unit state table (rules.ts). Vacating removes every
 * visitor of the unit. A repeated action answers the unit unchanged and sends no command.
 * Returns null when the unit was deleted.
 */
export async function actOnUnit(
  ac: AccessControlParts,
  facility: VisibleFacility,
  unitId: EntityId,
  action: UnitAction,
  suppressCommands: boolean,
): Promise<UnitView | null> {
  return inChange(ac, facility.id, suppressCommands, async ({ trx, command }) => {
    const unit = await lockUnit(trx, facility.id, unitId);
    const decision = decideUnitAction(unit.status, action);
    if (!decision.ok) throw conflict(decision.code, decision.reason);
    const { status, changed } = decision.value;
    if (!changed) return unitView(unit, facility);
    if (status === null) {
      await repo.deleteUnit(trx, unit.id);
      await command('unit.delete', { action, unitId: unit.id, unitNumber: unit.unit_number });
      return null;
    }
    const updated = await repo.setUnitStatus(trx, unit.id, status);
    if (action === 'vacate') {
      const removedVisitorIds = await repo.removeUnitVisitors(trx, unit.id);
      await command('unit.vacate', { action, unit: unitState(updated), removedVisitorIds });
    } else {
      await command('unit.upsert', { action, unit: unitState(updated) });
    }
    return unitView(updated, facility);
  });
}

// Units of a facility: create, the state actions (disable, enable, vacate, delete) and reads. Each
// change writes its command in the same transaction (change.ts); the SQL is in repository.ts.
import type { VisibleFacility } from '../auth/guard.ts';
import type { Db } from '../db/tables.ts';
import { AppError, conflict, validationFailed } from '../errors.ts';
import { isEntityId } from '../ids.ts';
import { inChange } from './change.ts';
import type { AccessControl } from './index.ts';
import * as repo from './repository.ts';
import type { UnitRow } from './repository.ts';
import { decideUnitAction, EXTENDED_DATA_MAX_BYTES, type UnitAction, type UnitStatus } from './rules.ts';

export interface UnitView {
  id: string;
  unitNumber: string;
  status: UnitStatus;
  facilityId: string;
  extendedData: Record<string, unknown> | null;
}

/** What the controller keeps of a unit. */
export interface UnitState {
  id: string;
  unitNumber: string;
  status: UnitStatus;
}

export const unitView = (r: UnitRow): UnitView => ({
  id: r.id,
  unitNumber: r.unit_number,
  status: r.status,
  facilityId: r.facility_id,
  extendedData: r.extended_data,
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
export async function lockUnit(trx: Db, facilityId: string, unitId: string, path?: string): Promise<UnitRow> {
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
  facilityId: string,
  page: { limit?: number; offset?: number },
): Promise<UnitView[]> {
  return (await repo.selectUnits(db, facilityId, page)).map(unitView);
}

/** A live unit of the facility; 404 otherwise. */
export async function getUnit(db: Db, facilityId: string, unitId: string): Promise<UnitView> {
  if (!isEntityId(unitId)) throw unitNotFound();
  const row = await repo.findUnit(db, facilityId, unitId);
  if (!row) throw unitNotFound();
  return unitView(row);
}

export async function createUnit(
  ac: AccessControl,
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
    return unitView(row);
  });
}

/**
 * disable · enable · vacate · delete, by the unit state table (rules.ts). Vacating removes every
 * visitor of the unit. A repeated action answers the unit unchanged and sends no command.
 * Returns null when the unit was deleted.
 */
export async function actOnUnit(
  ac: AccessControl,
  facility: VisibleFacility,
  unitId: string,
  action: UnitAction,
  suppressCommands: boolean,
): Promise<UnitView | null> {
  return inChange(ac, facility.id, suppressCommands, async ({ trx, command }) => {
    const unit = await lockUnit(trx, facility.id, unitId);
    const decision = decideUnitAction(unit.status, action);
    if (!decision.ok) throw conflict(decision.code, decision.reason);
    const { status, changed } = decision.value;
    if (!changed) return unitView(unit);
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
    return unitView(updated);
  });
}

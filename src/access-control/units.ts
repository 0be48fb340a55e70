// Units of a facility: create, the state actions (disable, enable, vacate, delete), reads, and
// the full-state refresh. Each change writes its command in the same transaction.
import { sql } from 'kysely';
import type { VisibleFacility } from '../auth/guard.ts';
import { AppError, conflict, notFound, validationFailed } from '../errors.ts';
import { inChange, type RefreshResult } from './change.ts';
import type { Db } from '../db/tables.ts';
import { lockCommandSequence } from './commands.ts';
import type { AccessControl } from './index.ts';
import { decideUnitAction, type UnitAction, type UnitStatus } from './rules.ts';
import { isEntityId } from '../ids.ts';

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

interface UnitRow {
  id: string;
  facility_id: string;
  unit_number: string;
  status: UnitStatus;
  extended_data: Record<string, unknown> | null;
}

export const unitView = (r: UnitRow): UnitView => ({ id: r.id, unitNumber: r.unit_number, status: r.status, facilityId: r.facility_id, extendedData: r.extended_data });
export const unitState = (r: Pick<UnitRow, 'id' | 'unit_number' | 'status'>): UnitState => ({ id: r.id, unitNumber: r.unit_number, status: r.status });


export const unitNotFound = (path?: string) =>
  new AppError(404, 'UNIT_NOT_FOUND', 'The unit was not found at this facility.', path ? [{ path, message: 'is not a unit of this facility' }] : []);

const UNIT_COLUMNS = ['id', 'facility_id', 'unit_number', 'status', 'extended_data'] as const;

/** A live unit of the facility, locked for the rest of the transaction; 404 otherwise. */
export async function lockUnit(trx: Db, facilityId: string, unitId: string, path?: string): Promise<UnitRow> {
  if (!isEntityId(unitId)) throw unitNotFound(path);
  const row = await trx
    .selectFrom('units')
    .select(UNIT_COLUMNS)
    .where('id', '=', unitId)
    .where('facility_id', '=', facilityId)
    .where('deleted_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw unitNotFound(path);
  return row;
}

export const EXTENDED_DATA_MAX_BYTES = 16 * 1024;

/** extendedData as stored: any JSON object (null values kept), at most 16 KiB as JSON. */
export function extendedDataText(value: Record<string, unknown> | null | undefined, path = 'extendedData'): string | null {
  if (value === undefined || value === null) return null;
  const text = JSON.stringify(value);
  if (Buffer.byteLength(text) > EXTENDED_DATA_MAX_BYTES) throw validationFailed([{ path, message: `must be at most ${EXTENDED_DATA_MAX_BYTES} bytes as JSON` }]);
  return text;
}

export async function listUnits(db: Db, facilityId: string, page: { limit?: number; offset?: number }): Promise<UnitView[]> {
  let query = db
    .selectFrom('units')
    .select(UNIT_COLUMNS)
    .where('facility_id', '=', facilityId)
    .where('deleted_at', 'is', null)
    .orderBy('unit_number')
    .orderBy('id');
  if (page.limit !== undefined) query = query.limit(page.limit);
  if (page.offset) query = query.offset(page.offset);
  return (await query.execute()).map(unitView);
}

export async function getUnit(db: Db, facilityId: string, unitId: string): Promise<UnitView> {
  if (!isEntityId(unitId)) throw unitNotFound();
  const row = await db.selectFrom('units').select(UNIT_COLUMNS).where('id', '=', unitId).where('facility_id', '=', facilityId).where('deleted_at', 'is', null).executeTakeFirst();
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
    const row = await trx
      .insertInto('units')
      .values({ facility_id: facility.id, unit_number: unitNumber, extended_data: extended })
      .returning(UNIT_COLUMNS)
      .executeTakeFirstOrThrow();
    await command('unit.upsert', { action: 'create', unit: unitState(row) });
    return unitView(row);
  });
}

/**
 * disable · enable · vacate · delete, by the unit state table (rules.ts). Vacating removes every
 * visitor of the unit. A repeated action answers the unit unchanged and sends no command.
 * Returns null when the unit was deleted.
 */
export async function actOnUnit(ac: AccessControl, facility: VisibleFacility, unitId: string, action: UnitAction, suppressCommands: boolean): Promise<UnitView | null> {
  return inChange(ac, facility.id, suppressCommands, async ({ trx, command }) => {
    const unit = await lockUnit(trx, facility.id, unitId);
    const decision = decideUnitAction(unit.status, action);
    if (!decision.ok) throw conflict(decision.code, decision.reason);
    const { status, changed } = decision.value;
    if (!changed) return unitView(unit);
    if (status === null) {
      await trx.updateTable('units').set({ deleted_at: sql`now()`, updated_at: sql`now()` }).where('id', '=', unit.id).execute();
      await command('unit.delete', { action, unitId: unit.id, unitNumber: unit.unit_number });
      return null;
    }
    const updated = await trx
      .updateTable('units')
      .set({ status, updated_at: sql`now()` })
      .where('id', '=', unit.id)
      .returning(UNIT_COLUMNS)
      .executeTakeFirstOrThrow();
    if (action === 'vacate') {
      const removed = await trx
        .updateTable('visitors')
        .set({ removed_at: sql`now()`, updated_at: sql`now()` })
        .where('unit_id', '=', unit.id)
        .where('removed_at', 'is', null)
        .returning('id')
        .execute();
      await command('unit.vacate', { action, unit: unitState(updated), removedVisitorIds: removed.map((r) => r.id) });
    } else {
      await command('unit.upsert', { action, unit: unitState(updated) });
    }
    return unitView(updated);
  });
}

/** One command with every live unit of the facility: the controller replaces its units with them. */
export async function refreshUnits(ac: AccessControl, facility: VisibleFacility): Promise<RefreshResult> {
  return inChange(ac, facility.id, false, async ({ trx, command }) => {
    await lockCommandSequence(trx, facility.id);
    const rows = await trx
      .selectFrom('units')
      .select(['id', 'unit_number', 'status'])
      .where('facility_id', '=', facility.id)
      .where('deleted_at', 'is', null)
      .orderBy('unit_number')
      .execute();
    const written = await command('units.refresh', { action: 'refresh', units: rows.map(unitState) });
    return { command: { ...written!, type: 'units.refresh', status: 'pending' }, count: rows.length };
  });
}

// What the facility's controller should hold — its units and visitors as the PMS has them — read for
// the drift face's comparison (gate codes opened here, hashed there, never kept), and the commands
// that put items back as the PMS has them (a heal), written into the drift face's change with the
// same payloads as the changes that made them (units.ts, visitors.ts, refresh.ts).
import { sql } from 'kysely';
import type { Change } from '../commands/index.ts';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import type { AccessControlParts } from './deps.ts';
import * as repo from './repository.ts';
import { unitState } from './units.ts';
import { visitorState } from './visitors.ts';

export interface HeldUnit {
  id: EntityId;
  unitNumber: string;
  status: string;
}

export interface HeldVisitor {
  id: EntityId;
  unitId: EntityId | null;
  isEnabled: boolean;
  timeGroupId: number;
  accessProfileId: number;
  /** In clear, for the digest's hash only. */
  accessCode: string;
}

/** Which items to read: every one, or those whose id falls in the listed buckets (id mod `of`). */
export type ItemBuckets = { of: number; units: readonly number[] | null; visitors: readonly number[] | null };

const inBuckets = (column: string, of: number, buckets: readonly number[] | null) =>
  buckets === null ? sql<boolean>`true` : sql<boolean>`${sql.ref(column)} % ${of} = any(${buckets}::int[])`;

/** The live units and visitors of the facility, reduced to what a digest covers. */
export async function heldItems(
  { vault }: Pick<AccessControlParts, 'vault'>,
  db: Db,
  facilityId: EntityId,
  buckets: ItemBuckets | null,
): Promise<{ units: HeldUnit[]; visitors: HeldVisitor[] }> {
  const of = buckets?.of ?? 1;
  const units = await db
    .selectFrom('units')
    .select(['id', 'unit_number', 'status'])
    .where('facility_id', '=', facilityId)
    .where('deleted_at', 'is', null)
    .where(inBuckets('id', of, buckets?.units ?? null))
    .execute();
  const visitors = await db
    .selectFrom('visitors')
    .select(['id', 'unit_id', 'is_enabled', 'time_group_id', 'access_profile_id', 'access_code_sealed'])
    .where('facility_id', '=', facilityId)
    .where('removed_at', 'is', null)
    .where(inBuckets('id', of, buckets?.visitors ?? null))
    .execute();
  return {
    units: units.map((u) => ({ id: u.id, unitNumber: u.unit_number, status: u.status })),
    visitors: visitors.map((v) => ({
      id: v.id,
      unitId: v.unit_id,
      isEnabled: v.is_enabled,
      timeGroupId: v.time_group_id,
      accessProfileId: v.access_profile_id,
      accessCode: vault.unseal(v.id, v.access_code_sealed),
    })),
  };
}

/** What to put back, per kind: a full refresh, or items to send again (upsert) and items to take away (remove). */
export type KindCorrection =
  | { refresh: true }
  | { refresh: false; upsert: readonly EntityId[]; remove: readonly EntityId[] };

export interface Correction {
  units: KindCorrection | null;
  visitors: KindCorrection | null;
  /** Named in every command's payload (`driftId`), so the controller and the PMS can tell a heal apart. */
  driftId: string;
}

/**
 * Writes the commands of a correction into the change (whose transaction holds the facility's
 * command sequence): the items' states as the PMS has them now; returns how many it wrote, and the
 * sequence of the last.
 */
export async function writeCorrection(
  change: Change,
  facilityId: EntityId,
  correction: Correction,
): Promise<{ written: number; lastSequence: number }> {
  const { trx, command } = change;
  const action = 'correct';
  const { driftId } = correction;
  let written = 0;
  let lastSequence = 0;
  const write = async (type: Parameters<Change['command']>[0], payload: object) => {
    const made = await command(type, { action, driftId, ...payload });
    if (made) {
      written++;
      lastSequence = made.sequence;
    }
  };
  const { units, visitors } = correction;
  if (units?.refresh) {
    await write('units.refresh', { units: (await repo.selectUnitStates(trx, facilityId)).map(unitState) });
  } else if (units) {
    const rows = units.upsert.length === 0 ? [] : await repo.selectUnitStatesById(trx, facilityId, units.upsert);
    for (const row of rows) await write('unit.upsert', { unit: unitState(row) });
    for (const unitId of units.remove) await write('unit.delete', { unitId });
  }
  if (visitors) {
    const timeZone = await repo.facilityTimeZone(trx, facilityId);
    if (visitors.refresh) {
      const rows = await repo.selectVisitorStates(trx, facilityId);
      await write('visitors.refresh', { visitors: rows.map((r) => visitorState(r, timeZone)) });
    } else {
      const rows =
        visitors.upsert.length === 0 ? [] : await repo.selectVisitorStatesById(trx, facilityId, visitors.upsert);
      for (const row of rows) {
        const unit =
          row.unit_id === null ? null : { id: row.unit_id, unit_number: row.unit_number!, status: row.unit_status! };
        await write('visitor.upsert', { visitor: visitorState(row, timeZone), unit: unit && unitState(unit) });
      }
      for (const visitorId of visitors.remove) await write('visitor.remove', { visitorId });
    }
  }
  return { written, lastSequence };
}

// Unit numbers and visitor names for the ids a controller reports, resolved once at ingest and
// stored with the event (an event says what was true when it happened). An id that names no unit
// or visitor of the event's facility resolves to nothing.
import { sql } from 'kysely';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';

export interface ResolvedNames {
  unitNumbers: Map<EntityId, string>;
  visitorNames: Map<EntityId, string>;
}

export async function resolveNames(
  trx: Db,
  facilityId: EntityId,
  unitIds: readonly EntityId[],
  visitorIds: readonly EntityId[],
): Promise<ResolvedNames> {
  const result: ResolvedNames = { unitNumbers: new Map(), visitorNames: new Map() };
  const units = [...new Set(unitIds)];
  const visitors = [...new Set(visitorIds)];
  if (units.length > 0) {
    const { rows } = await sql<{ id: EntityId; unit_number: string }>`
      select id, unit_number from units where facility_id = ${facilityId} and id = any(${units}::int8[])`.execute(trx);
    for (const row of rows) result.unitNumbers.set(row.id, row.unit_number);
  }
  if (visitors.length > 0) {
    const { rows } = await sql<{ id: EntityId; name: string }>`
      select id, concat_ws(' ', first_name, last_name) as name
        from visitors where facility_id = ${facilityId} and id = any(${visitors}::int8[])`.execute(trx);
    for (const row of rows) result.visitorNames.set(row.id, row.name);
  }
  return result;
}

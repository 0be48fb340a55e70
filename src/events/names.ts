// Unit numbers and visitor names for the ids a controller reports, resolved once at ingest and
// stored with the event (an event says what was true when it happened).
//
// The units and visitors tables belong to the access-control face (migration 0005). This reads
// only these columns, and only when they exist, so ingest works before and after that migration:
//   units:    id uuid, facility_id uuid, unit_number text
//   visitors: id uuid, facility_id uuid, first_name text, last_name text
// An id that is not a uuid, or names nothing at the event's facility, resolves to null.
import { sql } from 'kysely';
import type { Db } from '../db/tables.ts';
import { isEntityId } from '../ids.ts';

export interface ResolvedNames {
  unitNumbers: Map<string, string>;
  visitorNames: Map<string, string>;
}

interface Availability {
  units: boolean;
  visitors: boolean;
}

// Once the tables are there they stay: a positive answer is kept for the life of the process.
let available: Availability | null = null;

async function availability(trx: Db): Promise<Availability> {
  if (available?.units && available.visitors) return available;
  const { rows } = await sql<{ relation: string; columns: string[] }>`
    select c.relname as relation, array_agg(a.attname::text) as columns
      from pg_class c
      join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
     where c.oid in (to_regclass('units'), to_regclass('visitors'))
     group by c.relname`.execute(trx);
  const has = (relation: string, needed: string[]) => {
    const columns = rows.find((row) => row.relation === relation)?.columns ?? [];
    return needed.every((column) => columns.includes(column));
  };
  const found = {
    units: has('units', ['id', 'facility_id', 'unit_number']),
    visitors: has('visitors', ['id', 'facility_id', 'first_name', 'last_name']),
  };
  if (found.units && found.visitors) available = found;
  return found;
}

export async function resolveNames(
  trx: Db,
  facilityId: string,
  unitIds: readonly string[],
  visitorIds: readonly string[],
): Promise<ResolvedNames> {
  const result: ResolvedNames = { unitNumbers: new Map(), visitorNames: new Map() };
  const units = [...new Set(unitIds.filter((id) => isEntityId(id)))];
  const visitors = [...new Set(visitorIds.filter((id) => isEntityId(id)))];
  if (units.length === 0 && visitors.length === 0) return result;
  const tables = await availability(trx);
  if (tables.units && units.length > 0) {
    const { rows } = await sql<{ id: string; unit_number: string }>`
      select id::text as id, unit_number from units where facility_id = ${facilityId}::uuid and id = any(${units}::uuid[])`.execute(
      trx,
    );
    // Keyed by the id as the controller wrote it (case aside).
    for (const row of rows) result.unitNumbers.set(row.id.toLowerCase(), row.unit_number);
  }
  if (tables.visitors && visitors.length > 0) {
    const { rows } = await sql<{ id: string; name: string }>`
      select id::text as id, concat_ws(' ', first_name, last_name) as name from visitors where facility_id = ${facilityId}::uuid and id = any(${visitors}::uuid[])`.execute(
      trx,
    );
    for (const row of rows) result.visitorNames.set(row.id.toLowerCase(), row.name);
  }
  return result;
}

// A facility's initial state, written in bulk: units, and a tenant with a gate code on the first of
// them (a sandbox's seeded facilities, src/sandbox/). Set-based — one statement per table, however
// many rows — and without a command per row: these rows are the facility's state from its first
// moment, not changes a controller must be told of one by one. Whoever runs the facility's controller
// hands it the whole state at once with a full refresh (refresh.ts; the sandbox's simulated
// controllers, issue 30 part B, start that way).
import { randomInt } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/tables.ts';
import type { AccessCodeRules } from '../http/caller.ts';
import type { EntityId } from '../ids.ts';
import type { AccessControlParts } from './deps.ts';
import { judgeAccessCode } from './rules.ts';

export interface SeedCounts {
  units: number;
  /** At most `units`: each visitor is the tenant of one unit (the first `visitors` units are Rented). */
  visitors: number;
}

const FIRST_NAMES = ['Ada', 'Ben', 'Cleo', 'Dev', 'Eli', 'Fay', 'Gus', 'Hana', 'Ivo', 'Jo', 'Kai', 'Lena', 'Milo'];
const LAST_NAMES = ['Archer', 'Baker', 'Castillo', 'Dunn', 'Ellis', 'Fischer', 'Garcia', 'Hughes', 'Ito', 'Jensen'];
const ALPHANUMERIC = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * `count` distinct gate codes that follow the facility's rules (each judged as a PMS's code would be),
 * random, of a length inside the rules that leaves room for them all. Pure but for `random`.
 */
export function seedAccessCodes(
  count: number,
  rules: AccessCodeRules,
  random: (below: number) => number = randomInt,
): string[] {
  const alphabet = rules.characters === 'digits' ? ALPHANUMERIC.slice(0, 10) : ALPHANUMERIC;
  // Six characters when the rules allow it; longer when the count needs room (at most a tenth of the space used).
  let length = Math.min(Math.max(6, rules.minLength), rules.maxLength);
  while (length < rules.maxLength && alphabet.length ** length < count * 10) length++;
  if (alphabet.length ** length < count)
    throw new Error(`the facility's gate-code rules allow fewer than ${count} codes`);
  const codes = new Set<string>();
  while (codes.size < count) {
    let code = '';
    for (let i = 0; i < length; i++) code += alphabet[random(alphabet.length)];
    const judged = judgeAccessCode(code, rules);
    if (!judged.ok) throw new Error(`a seeded code does not follow the rules: ${judged.reason}`);
    codes.add(judged.value);
  }
  return [...codes];
}

/** Unit numbers of a seeded facility: A-001 … (as wide as the count needs). */
export const seededUnitNumber = (n: number, count: number) =>
  `A-${String(n).padStart(Math.max(3, String(count).length), '0')}`;

/**
 * Seeds a new facility (in the caller's transaction, `trx`): `counts.units` units and `counts.visitors`
 * tenants with gate codes that follow the facility's rules, sealed and digested like every code.
 * Writes no command (see the top of this file).
 */
export async function seedInitialState(
  { vault }: Pick<AccessControlParts, 'vault'>,
  trx: Db,
  facility: { id: EntityId; accessCodeRules: AccessCodeRules },
  counts: SeedCounts,
): Promise<{ units: number; visitors: number }> {
  if (counts.visitors > counts.units) throw new Error('each seeded visitor is the tenant of a unit of its own');
  const numbers = Array.from({ length: counts.units }, (_, i) => seededUnitNumber(i + 1, counts.units));
  const units = await sql<{ id: EntityId; unit_number: string }>`
    insert into units (facility_id, unit_number, status)
    select ${facility.id}::int8, n.unit_number, case when n.ord <= ${counts.visitors}::int then 'Rented' else 'Vacant' end
      from unnest(${numbers}::text[]) with ordinality as n(unit_number, ord)
    returning id, unit_number`.execute(trx);
  const unitIdOf = new Map(units.rows.map((r) => [r.unit_number, Number(r.id)]));
  if (counts.visitors === 0) return { units: units.rows.length, visitors: 0 };

  // The ids first (one statement): each sealed code is bound to its visitor's id.
  const drawn = await sql<{ id: string | number }>`
    select nextval(pg_get_serial_sequence('visitors', 'id')) as id from generate_series(1, ${counts.visitors}::int)`.execute(
    trx,
  );
  const ids = drawn.rows.map((r) => Number(r.id));
  const codes = seedAccessCodes(counts.visitors, facility.accessCodeRules);
  const unitIds = ids.map((_, i) => unitIdOf.get(numbers[i]!)!);
  const firstNames = ids.map((_, i) => FIRST_NAMES[i % FIRST_NAMES.length]!);
  const lastNames = ids.map((_, i) => LAST_NAMES[Math.floor(i / FIRST_NAMES.length) % LAST_NAMES.length]!);
  const digests = codes.map((code) => vault.digest(facility.id, code));
  const sealed = codes.map((code, i) => vault.seal(ids[i]!, code));
  const visitors = await sql`
    insert into visitors (id, facility_id, unit_id, first_name, last_name, is_tenant, time_group_id, access_profile_id,
                          access_code_digest, access_code_sealed)
    select v.id, ${facility.id}::int8, v.unit_id, v.first_name, v.last_name, true,
           (select id from time_groups where facility_id = ${facility.id}::int8 and is_default),
           (select id from access_profiles where facility_id = ${facility.id}::int8 and is_default),
           v.digest, v.sealed
      from unnest(${ids}::int8[], ${unitIds}::int8[], ${firstNames}::text[], ${lastNames}::text[],
                  ${digests}::bytea[], ${sealed}::bytea[]) as v(id, unit_id, first_name, last_name, digest, sealed)`.execute(
    trx,
  );
  return { units: units.rows.length, visitors: Number(visitors.numAffectedRows ?? 0) };
}

// The SQL of the drift face: the drift records of a facility (one open at most, 0016_drift.sql).
import { sql } from 'kysely';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import type { DriftItem } from './rules.ts';

/**
 * Records what was found and corrected: a new open drift (with the id its corrections name), or the
 * one open with its items now `items` (its corrections counted, its round of corrections now).
 * Returns its id and whether it is new (the `found` fact).
 */
export async function recordFound(
  trx: Db,
  facilityId: EntityId,
  driftId: string,
  items: readonly DriftItem[],
  corrections: { written: number; lastSequence: number },
): Promise<{ id: string; found: boolean }> {
  const { rows } = await sql<{ id: string; found: boolean }>`
    insert into drifts (id, facility_id, items, corrections, corrected_through)
    values (${driftId}::uuid, ${facilityId}::int8, ${JSON.stringify(items)}::jsonb, ${corrections.written},
            ${corrections.lastSequence}::int8)
    on conflict (facility_id) where healed_at is null
    do update set items = excluded.items, corrections = drifts.corrections + excluded.corrections,
                  corrected_at = now(), corrected_through = excluded.corrected_through
    returning id, (xmax = 0) as found`.execute(trx);
  return rows[0]!;
}

/**
 * The open drift, when there is one: its id (its heal's commands name it), its items, whether its
 * last round of corrections was sent within `withinSeconds`, and that round's last sequence.
 */
export async function findOpenDrift(
  trx: Db,
  facilityId: EntityId,
  withinSeconds: number,
): Promise<{ id: string; items: DriftItem[]; correctedRecently: boolean; correctedThrough: number } | null> {
  const row = await trx
    .selectFrom('drifts')
    .select([
      'id',
      'items',
      'corrected_through',
      sql<boolean>`corrected_at > now() - make_interval(secs => ${withinSeconds})`.as('corrected_recently'),
    ])
    .where('facility_id', '=', facilityId)
    .where('healed_at', 'is', null)
    .executeTakeFirst();
  return row
    ? {
        id: row.id,
        items: row.items,
        correctedRecently: row.corrected_recently,
        correctedThrough: row.corrected_through,
      }
    : null;
}

/** Marks the open drift healed (the `healed` fact), if there is one; returns its id. */
export async function healOpenDrift(db: Db, facilityId: EntityId): Promise<string | null> {
  const row = await db
    .updateTable('drifts')
    .set({ healed_at: sql`now()`, healed_txid: sql`pg_current_xact_id()::text::int8` })
    .where('facility_id', '=', facilityId)
    .where('healed_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row?.id ?? null;
}

/** The facility's drifts, newest first, at most `limit`, before a time when given. */
export function selectDrifts(db: Db, facilityId: EntityId, limit: number) {
  return db
    .selectFrom('drifts')
    .select(['id', 'found_at', 'healed_at', 'items', 'corrections'])
    .where('facility_id', '=', facilityId)
    .orderBy('found_at', 'desc')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Deletes up to `slice` drifts healed before the cutoff; returns how many. */
export async function deleteHealedBefore(db: Db, cutoff: Date, slice: number): Promise<number> {
  const result = await db
    .deleteFrom('drifts')
    .where('id', 'in', (qb) => qb.selectFrom('drifts').select('id').where('healed_at', '<', cutoff).limit(slice))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

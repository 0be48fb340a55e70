// The drift records as the PMS and the console read them (GET /facilities/{facilityId}/drift), and how
// long they are kept: an open drift for as long as it lasts, a healed one DRIFT_RETENTION_DAYS.
import type { EntityId } from '../ids.ts';
import type { DriftDeps } from './deps.ts';
import * as repo from './repository.ts';
import type { DriftItem } from './rules.ts';

/** Healed drifts are deleted this long after their heal (the access events' horizon). */
export const DRIFT_RETENTION_DAYS = 180;

export interface DriftView {
  id: string;
  status: 'open' | 'healed';
  foundAt: string;
  healedAt: string | null;
  corrections: number;
  items: DriftItem[];
}

/** The facility's drifts, newest first. */
export async function listDrifts(
  { db }: Pick<DriftDeps, 'db'>,
  facilityId: EntityId,
  options: { limit?: number },
): Promise<DriftView[]> {
  const rows = await repo.selectDrifts(db, facilityId, options.limit ?? 20);
  return rows.map((r) => ({
    id: r.id,
    status: r.healed_at === null ? 'open' : 'healed',
    foundAt: r.found_at.toISOString(),
    healedAt: r.healed_at?.toISOString() ?? null,
    corrections: r.corrections,
    items: r.items,
  }));
}

/** Deletes drifts healed more than DRIFT_RETENTION_DAYS ago, in slices; returns how many. */
export async function purgeHealedDrifts({ db }: Pick<DriftDeps, 'db'>, now: Date = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - DRIFT_RETENTION_DAYS * 86_400_000);
  const slice = 5000;
  let total = 0;
  for (;;) {
    const deleted = await repo.deleteHealedBefore(db, cutoff, slice);
    total += deleted;
    if (deleted < slice) return total;
  }
}

// Time groups of a facility: when a visitor may enter ("24 Hours" is the default). Read by the
// PMS; a visitor is given one (its id, or the facility's default).
import type { EntityId } from '../ids.ts';
import type { Db } from '../db/tables.ts';
import { AppError } from '../errors.ts';
import * as repo from './repository.ts';
import type { TimeWindow } from './rules.ts';

export interface TimeGroupView {
  id: number;
  name: string;
  isDefault: boolean;
  windows: TimeWindow[];
}

export async function listTimeGroups(db: Db, facilityId: EntityId): Promise<TimeGroupView[]> {
  const rows = await repo.selectTimeGroups(db, facilityId);
  return rows.map((r) => ({ id: r.id, name: r.name, isDefault: r.is_default, windows: r.windows }));
}

/** The id of the facility's time group `id`; 0, null or absent mean its default. 404 when it has none such. */
export async function resolveTimeGroup(trx: Db, facilityId: EntityId, id: number | null | undefined): Promise<number> {
  const found = await repo.findTimeGroupId(trx, facilityId, id ? id : 'default');
  if (found === undefined) {
    throw new AppError(404, 'TIME_GROUP_NOT_FOUND', 'The time group was not found at this facility.', [
      { path: 'timeGroupId', message: 'is not a time group of this facility' },
    ]);
  }
  return found;
}

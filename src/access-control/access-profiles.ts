// Access profiles of a facility: which access areas a visitor may enter ("All Access" is the
// default). Read by the PMS; a visitor is given one (its id, or the facility's default).
import type { EntityId } from '../ids.ts';
import type { Db } from '../db/tables.ts';
import { AppError } from '../errors.ts';
import * as repo from './repository.ts';

export interface AccessProfileView {
  id: number;
  name: string;
  isDefault: boolean;
  accessAreas: string[] | null;
}

export async function listAccessProfiles(db: Db, facilityId: EntityId): Promise<AccessProfileView[]> {
  const rows = await repo.selectAccessProfiles(db, facilityId);
  return rows.map((r) => ({ id: r.id, name: r.name, isDefault: r.is_default, accessAreas: r.access_areas }));
}

/** The id of the facility's access profile `id`; 0, null or absent mean its default. 404 when it has none such. */
export async function resolveAccessProfile(
  trx: Db,
  facilityId: EntityId,
  id: number | null | undefined,
): Promise<number> {
  const found = await repo.findAccessProfileId(trx, facilityId, id ? id : 'default');
  if (found === undefined) {
    throw new AppError(404, 'ACCESS_PROFILE_NOT_FOUND', 'The access profile was not found at this facility.', [
      { path: 'accessProfileId', message: 'is not an access profile of this facility' },
    ]);
  }
  return found;
}

// The facilities a PMS token sees through this face: its account's. One facility is the one the
// guard already loaded for the route (request.facility). A facility is shown through tenancy's one
// view of it; the route's schema keeps the fields this face documents.
import type { Principal } from '../http/caller.ts';
import type { Db } from '../db/tables.ts';
import { notFound } from '../errors.ts';
import { facilityView, type FacilityView } from '../tenancy/index.ts';
import { selectAccountFacilities, selectFacilityByPropertyNumber } from './repository.ts';

/** The facilities of the token's account, by name; none for a token that speaks for no account. */
export async function listFacilities(db: Db, principal: Principal): Promise<FacilityView[]> {
  if (principal.kind !== 'account') return [];
  return (await selectAccountFacilities(db, principal.accountId)).map(facilityView);
}

/**
 * The visible facility with this property number (how operators link a site); 404 otherwise —
 * the same answer whether no facility has the number or another account's does.
 */
export async function facilityByPropertyNumber(
  db: Db,
  principal: Principal,
  propertyNumber: string,
): Promise<FacilityView> {
  if (principal.kind !== 'account') throw notFound('The facility');
  const row = await selectFacilityByPropertyNumber(db, propertyNumber);
  if (!row || row.account_id !== principal.accountId) throw notFound('The facility');
  return facilityView(row);
}

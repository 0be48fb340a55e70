// The facilities a PMS token sees through this face: its account's. One facility is the one the
// guard already loaded for the route (request.facility). A facility is shown through tenancy's one
// view of it; the route's schema keeps the fields this face documents.
import type { Principal } from '../auth/principal.ts';
import type { Db } from '../db/tables.ts';
import { facilityView, type FacilityView } from '../tenancy/facilities.ts';
import { selectAccountFacilities } from './repository.ts';

/** The facilities of the token's account, by name; none for a token that speaks for no account. */
export async function listFacilities(db: Db, principal: Principal): Promise<FacilityView[]> {
  if (principal.kind !== 'account') return [];
  return (await selectAccountFacilities(db, principal.accountId)).map(facilityView);
}

// The facilities a PMS token sees through this face: its account's. One facility is the one the
// guard already loaded for the route (request.facility); its view is the schema's fields of it.
// (The facility row → view mapping exists also in tenancy/admin.ts and auth/guard.ts: left to
// the lead, as facilities are tenancy's.)
import type { Principal } from '../auth/principal.ts';
import type { Db } from '../db/tables.ts';
import { selectAccountFacilities, type FacilityRow } from './repository.ts';

export interface FacilityView {
  id: string;
  accountId: string;
  name: string;
  propertyNumber: string | null;
  timeZone: string;
}

export const facilityView = (r: FacilityRow): FacilityView => ({
  id: r.id,
  accountId: r.account_id,
  name: r.name,
  propertyNumber: r.property_number,
  timeZone: r.time_zone,
});

/** The facilities of the token's account, by name; none for a token that speaks for no account. */
export async function listFacilities(db: Db, principal: Principal): Promise<FacilityView[]> {
  if (principal.kind !== 'account') return [];
  return (await selectAccountFacilities(db, principal.accountId)).map(facilityView);
}

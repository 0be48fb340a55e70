// Facilities: the sites of an account, each with its time zone and, for auctions, its guid.
import type { Db } from '../db/tables.ts';
import { AppError, notFound, type FieldError } from '../errors.ts';
import { isEntityId } from '../ids.ts';
import * as repository from './repository.ts';
import type { FacilityRow } from './repository.ts';
import { GUID_RULE, isGuid, isTimeZone, refuseFaults, requireText } from './rules.ts';

export interface FacilityInput {
  accountId: string;
  name: string;
  timeZone: string;
  propertyNumber?: string | null;
  guid?: string | null;
  charityEnrolled?: boolean;
}

/** A facility as every face shows it: the one mapping of its row. */
export interface FacilityView {
  id: string;
  accountId: string;
  name: string;
  propertyNumber: string | null;
  timeZone: string;
  guid: string | null;
  charityEnrolled: boolean;
}

export function facilityView(row: Omit<FacilityRow, 'created_at'>): FacilityView {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    propertyNumber: row.property_number,
    timeZone: row.time_zone,
    guid: row.guid,
    charityEnrolled: row.charity_enrolled,
  };
}

export async function createFacility(db: Db, input: FacilityInput): Promise<FacilityView> {
  const faults: FieldError[] = [];
  if (!isEntityId(input.accountId)) faults.push({ path: 'accountId', message: 'must be an account id' });
  requireText(faults, 'name', input.name, 200);
  if (typeof input.timeZone !== 'string' || !isTimeZone(input.timeZone)) {
    faults.push({ path: 'timeZone', message: 'must be an IANA time zone such as America/Denver' });
  }
  if (input.propertyNumber != null) requireText(faults, 'propertyNumber', input.propertyNumber, 50);
  if (input.guid != null && !isGuid(input.guid)) faults.push({ path: 'guid', message: GUID_RULE });
  refuseFaults(faults);
  if (!(await repository.accountExists(db, input.accountId))) throw notFound('The account');
  if (input.guid != null && (await repository.guidTaken(db, input.guid))) {
    throw new AppError(409, 'GUID_TAKEN', `The guid ${input.guid} is already assigned to another facility.`, [
      { path: 'guid', message: 'is already in use' },
    ]);
  }
  const row = await repository.insertFacility(db, {
    account_id: input.accountId,
    name: input.name.trim(),
    time_zone: input.timeZone,
    property_number: input.propertyNumber ?? null,
    guid: input.guid ?? null,
    charity_enrolled: input.charityEnrolled ?? false,
  });
  return facilityView(row);
}

/** Every facility, or an account's (none for a value that cannot be an account id). */
export async function listFacilities(db: Db, accountId?: string): Promise<FacilityView[]> {
  if (accountId && !isEntityId(accountId)) return [];
  return (await repository.facilitiesOf(db, accountId || null)).map(facilityView);
}

// Facilities: the sites of an account, each with its time zone, postal address, property number
// (how PMS integrations link a site), gate-code rules and, for auctions, its guid.
import type { Db } from '../db/tables.ts';
import type { AccessCodeRules, VisibleFacility } from '../http/caller.ts';
import { AppError, notFound, type FieldError } from '../errors.ts';
import { type EntityId, parseEntityId } from '../ids.ts';
import * as repository from './repository.ts';
import type { FacilityRow } from './repository.ts';
import {
  type AccessCodeRulesInput,
  DEFAULT_ACCESS_CODE_RULES,
  GUID_RULE,
  accessCodeRulesOf,
  firstAddressLine,
  isGuid,
  isTimeZone,
  optionalText,
  refuseFaults,
  requireText,
} from './rules.ts';

/**
 * The postal address of a facility: every part optional (shown by PMS tools as given). addressLine1
 * is also written and read as `addressLine`, its deprecated alias (firstAddressLine, facilityView).
 */
export const ADDRESS_FIELDS = {
  addressLine1: { column: 'address_line', max: 200 },
  addressLine2: { column: 'address_line2', max: 200 },
  city: { column: 'city', max: 100 },
  state: { column: 'state', max: 100 },
  postalCode: { column: 'postal_code', max: 20 },
  country: { column: 'country', max: 100 },
} as const;
type AddressField = keyof typeof ADDRESS_FIELDS;

export interface FacilityInput extends Partial<Record<AddressField, string | null>> {
  /** Deprecated alias of addressLine1: either may be sent, both only when they agree. */
  addressLine?: string | null;
  /** A number, or its digits (the command line). */
  accountId: EntityId | string;
  name: string;
  timeZone: string;
  propertyNumber?: string | null;
  guid?: string | null;
  charityEnrolled?: boolean;
  /** Sub-fields left out take the default (digits, 4–10). */
  accessCodeRules?: AccessCodeRulesInput;
}

/** What an operator changes on a facility after its creation. */
export interface FacilityChanges {
  /** Sub-fields left out keep their value. */
  accessCodeRules?: AccessCodeRulesInput;
}

/** The facility as every face shows it (the caller-identity mechanism's shape): the one mapping of its row. */
export type FacilityView = VisibleFacility;

/** A facility by id, as every face shows it; null when there is none. */
export async function findFacility(db: Db, id: EntityId): Promise<FacilityView | null> {
  const row = await repository.facilityById(db, id);
  return row ? facilityView(row) : null;
}

export function facilityView(row: Omit<FacilityRow, 'created_at'>): FacilityView {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    propertyNumber: row.property_number,
    timeZone: row.time_zone,
    addressLine1: row.address_line,
    addressLine2: row.address_line2,
    city: row.city,
    state: row.state,
    postalCode: row.postal_code,
    country: row.country,
    addressLine: row.address_line,
    accessCodeRules: accessCodeRulesView(row),
    guid: row.guid,
    charityEnrolled: row.charity_enrolled,
  };
}

const accessCodeRulesView = (
  row: Pick<FacilityRow, 'access_code_characters' | 'access_code_min_length' | 'access_code_max_length'>,
): AccessCodeRules => ({
  characters: row.access_code_characters,
  minLength: row.access_code_min_length,
  maxLength: row.access_code_max_length,
});

const accessCodeRulesColumns = (rules: AccessCodeRules) => ({
  access_code_characters: rules.characters,
  access_code_min_length: rules.minLength,
  access_code_max_length: rules.maxLength,
});

// The unique constraints of facilities (0002_tenancy.sql) and the field each one is about.
const UNIQUE_FIELDS: Record<string, { path: 'guid' | 'propertyNumber'; code: string; what: string }> = {
  facilities_guid_key: { path: 'guid', code: 'GUID_TAKEN', what: 'guid' },
  facilities_property_number_key: { path: 'propertyNumber', code: 'PROPERTY_NUMBER_TAKEN', what: 'property number' },
};

export async function createFacility(db: Db, input: FacilityInput): Promise<FacilityView> {
  const faults: FieldError[] = [];
  const accountId = parseEntityId(input.accountId);
  if (accountId === null) faults.push({ path: 'accountId', message: 'must be an account id (a positive integer)' });
  requireText(faults, 'name', input.name, 200);
  if (typeof input.timeZone !== 'string' || !isTimeZone(input.timeZone)) {
    faults.push({ path: 'timeZone', message: 'must be an IANA time zone such as America/Denver' });
  }
  if (input.propertyNumber != null) requireText(faults, 'propertyNumber', input.propertyNumber, 50);
  if (input.guid != null && !isGuid(input.guid)) faults.push({ path: 'guid', message: GUID_RULE });
  const address: Partial<Record<(typeof ADDRESS_FIELDS)[AddressField]['column'], string | null>> = {};
  for (const [field, { column, max }] of Object.entries(ADDRESS_FIELDS)) {
    address[column] =
      field === 'addressLine1'
        ? firstAddressLine(faults, input, max)
        : optionalText(faults, field, input[field as AddressField], max);
  }
  const accessCodeRules = accessCodeRulesOf(faults, input.accessCodeRules, DEFAULT_ACCESS_CODE_RULES);
  refuseFaults(faults);
  if (!(await repository.accountExists(db, accountId!))) throw notFound('The account');
  try {
    const row = await repository.insertFacility(db, {
      account_id: accountId!,
      name: input.name.trim(),
      time_zone: input.timeZone,
      property_number: input.propertyNumber?.trim() ?? null,
      address_line: address.address_line ?? null,
      address_line2: address.address_line2 ?? null,
      city: address.city ?? null,
      state: address.state ?? null,
      postal_code: address.postal_code ?? null,
      country: address.country ?? null,
      guid: input.guid ?? null,
      charity_enrolled: input.charityEnrolled ?? false,
      ...accessCodeRulesColumns(accessCodeRules),
    });
    return facilityView(row);
  } catch (error) {
    const { code, constraint } = error as { code?: string; constraint?: string };
    const taken = code === '23505' && constraint ? UNIQUE_FIELDS[constraint] : undefined;
    if (!taken) throw error;
    throw new AppError(409, taken.code, `That ${taken.what} is already assigned to another facility.`, [
      { path: taken.path, message: 'is already in use' },
    ]);
  }
}

/**
 * Changes the facility's settings given. Its gate-code rules apply to codes sent from now on: the
 * codes its visitors hold are not re-checked. The row is locked while the change is decided, so that
 * two partial changes at once cannot together make a minimum above the maximum.
 */
export async function updateFacility(
  db: Db,
  facilityId: EntityId | string,
  changes: FacilityChanges,
): Promise<FacilityView> {
  const id = parseEntityId(facilityId);
  if (id === null) throw notFound('The facility');
  return db.transaction().execute(async (trx) => {
    const current = await repository.lockFacility(trx, id);
    if (!current) throw notFound('The facility');
    const faults: FieldError[] = [];
    const accessCodeRules = accessCodeRulesOf(faults, changes.accessCodeRules, accessCodeRulesView(current));
    refuseFaults(faults);
    return facilityView(await repository.updateFacilityRow(trx, id, accessCodeRulesColumns(accessCodeRules)));
  });
}

/** Every facility, or an account's (none for a value that cannot be an account id). */
export async function listFacilities(db: Db, accountId?: EntityId | string): Promise<FacilityView[]> {
  if (accountId === undefined || accountId === '') return (await repository.facilitiesOf(db, null)).map(facilityView);
  const id = parseEntityId(accountId);
  return id === null ? [] : (await repository.facilitiesOf(db, id)).map(facilityView);
}

/** The facility ids among these that the holder may name (an account's own; a partner's listed ones). */
export async function facilitiesAmong(
  db: Db,
  holder: repository.FacilityHolder,
  ids: readonly EntityId[],
): Promise<Set<EntityId>> {
  return new Set(ids.length === 0 ? [] : await repository.facilityIdsAmong(db, holder, ids));
}

// The tenancy face: accounts, facilities, applications and credentials, administered by the
// operator through `gatehouse admin …` (src/cli/admin.ts) and the admin routes (routes/). It keeps no
// long-lived parts: createTenancy binds its operations to the database, and that is the face.
import type { Db } from '../db/tables.ts';
import { createAccount, listAccounts } from './accounts.ts';
import { createAccountKey, listAccountKeys, revokeAccountKey } from './account-keys.ts';
import {
  applicationIdOf,
  createApplication,
  getApplication,
  listApplications,
  revokeApplication,
} from './applications.ts';
import { createFacility, facilitiesAmong, findFacility, listFacilities, updateFacility } from './facilities.ts';
import { createGatewayCredential, listGatewayCredentials, revokeGatewayCredential } from './gateways.ts';
import { facilityExists } from './repository.ts';

/** The tenancy face: its operations, bound to the database. */
export function createTenancy(db: Db) {
  const withDb =
    <A extends unknown[], R>(operation: (db: Db, ...args: A) => R) =>
    (...args: A): R =>
      operation(db, ...args);
  return {
    createAccount: withDb(createAccount),
    listAccounts: withDb(listAccounts),
    createFacility: withDb(createFacility),
    updateFacility: withDb(updateFacility),
    findFacility: withDb(findFacility),
    listFacilities: withDb(listFacilities),
    facilityExists: withDb(facilityExists),
    facilitiesAmong: withDb(facilitiesAmong),
    createApplication: withDb(createApplication),
    getApplication: withDb(getApplication),
    applicationIdOf: withDb(applicationIdOf),
    listApplications: withDb(listApplications),
    revokeApplication: withDb(revokeApplication),
    createAccountKey: withDb(createAccountKey),
    listAccountKeys: withDb(listAccountKeys),
    revokeAccountKey: withDb(revokeAccountKey),
    createGatewayCredential: withDb(createGatewayCredential),
    listGatewayCredentials: withDb(listGatewayCredentials),
    revokeGatewayCredential: withDb(revokeGatewayCredential),
  };
}
export type Tenancy = ReturnType<typeof createTenancy>;
export type { FacilityHolder } from './repository.ts';

// The facility check that facility-status's createActionGroup runs on a bare database (the command line
// calls it without the face).
export { facilityExists };
export type { ApplicationInput } from './applications.ts';
export { facilityView, type FacilityChanges, type FacilityInput, type FacilityView } from './facilities.ts';
export { ACCESS_CODE_LENGTH, type AccessCodeRulesInput } from './rules.ts';
export { FACILITY_FIELDS } from './schemas.ts';

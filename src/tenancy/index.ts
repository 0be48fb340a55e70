// The tenancy face: accounts, facilities, applications and credentials, administered by the
// operator through `gatehouse admin …` (src/cli/admin.ts) and the admin routes (routes/). It keeps no
// long-lived parts: createTenancy binds its operations to the database, and that is the face.
import type { Db } from '../db/tables.ts';
import { createAccount, listAccounts } from './accounts.ts';
import { createAccountKey, listAccountKeys, revokeAccountKey } from './account-keys.ts';
import { createApplication, getApplication, listApplications, revokeApplication } from './applications.ts';
import { createFacility, findFacility, listFacilities } from './facilities.ts';
import { createGatewayCredential, listGatewayCredentials, revokeGatewayCredential } from './gateways.ts';
import { facilityExists } from './repository.ts';

const OPERATIONS = {
  createAccount,
  listAccounts,
  createAccountKey,
  listAccountKeys,
  revokeAccountKey,
  createApplication,
  getApplication,
  listApplications,
  revokeApplication,
  createFacility,
  findFacility,
  listFacilities,
  facilityExists,
  createGatewayCredential,
  listGatewayCredentials,
  revokeGatewayCredential,
};

type Bound<F> = F extends (db: Db, ...args: infer A) => infer R ? (...args: A) => R : never;
export type Tenancy = { [K in keyof typeof OPERATIONS]: Bound<(typeof OPERATIONS)[K]> };

/** The tenancy face: its operations, bound to the database. */
export function createTenancy(db: Db): Tenancy {
  const bound = {} as Record<string, unknown>;
  for (const [name, operation] of Object.entries(OPERATIONS))
    bound[name] = (...args: unknown[]) => (operation as (db: Db, ...rest: unknown[]) => unknown)(db, ...args);
  return bound as Tenancy;
}

// The operations as functions of the database, for one-shot work that holds a database but no face
// (the test fixtures); the service and the command line use the face.
export {
  createAccount,
  listAccounts,
  createAccountKey,
  listAccountKeys,
  revokeAccountKey,
  createApplication,
  listApplications,
  revokeApplication,
  createFacility,
  findFacility,
  listFacilities,
  facilityExists,
  createGatewayCredential,
  listGatewayCredentials,
  revokeGatewayCredential,
};
export type { ApplicationInput } from './applications.ts';
export { facilityView, type FacilityInput, type FacilityView } from './facilities.ts';

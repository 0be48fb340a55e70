// The tenancy face: accounts, facilities, applications and credentials, administered by the
// operator through `gatehouse admin …` (src/cli/admin.ts) and the admin routes (routes/). It keeps no
// long-lived parts, so there is nothing to create: its operations take the database and are the
// face's whole surface.
export { createAccount, listAccounts } from './accounts.ts';
export { createAccountKey, listAccountKeys, revokeAccountKey } from './account-keys.ts';
export { createApplication, listApplications, revokeApplication, type ApplicationInput } from './applications.ts';
export {
  createFacility,
  facilityView,
  findFacility,
  listFacilities,
  type FacilityInput,
  type FacilityView,
} from './facilities.ts';
export { createGatewayCredential, listGatewayCredentials, revokeGatewayCredential } from './gateways.ts';
// For other faces that take a facility id from an operator (facility status: a new action group).
export { facilityExists } from './repository.ts';

// Tenancy administration: accounts, facilities, applications and credentials. One set of
// operations behind both the `gatehouse admin …` commands and the admin HTTP routes.
// Secrets are generated here, returned once, and stored only as hashes.
import type { Kysely } from 'kysely';
import { hashSecret, randomToken } from '../auth/secrets.ts';
import { DEFAULT_ACCOUNT_SCOPES, isScope } from '../auth/principal.ts';
import type { Db } from '../db/tables.ts';
import { AppError, notFound, validationFailed, type FieldError } from '../errors.ts';
import { isEntityId } from '../ids.ts';


// Printable, no spaces or control characters: identifiers travel in JSON bodies, URLs and logs.
const GUID = /^[\x21-\x7e]{1,20}$/;

export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return /^[A-Za-z_]+(\/[A-Za-z0-9_+\-]+)*$/.test(value) || value === 'UTC';
  } catch {
    return false;
  }
}

function check(faults: FieldError[]): void {
  if (faults.length > 0) throw validationFailed(faults);
}

function requireText(faults: FieldError[], path: string, value: unknown, max: number): value is string {
  if (typeof value !== 'string' || value.trim().length === 0 || value.length > max || /[\x00-\x1f\x7f]/.test(value)) {
    faults.push({ path, message: `must be 1–${max} printable characters` });
    return false;
  }
  return true;
}

async function existing<T>(promise: Promise<T | undefined>, what: string): Promise<T> {
  const row = await promise;
  if (!row) throw notFound(what);
  return row;
}

// ---- accounts ----

export async function createAccount(db: Db, input: { name: string }) {
  const faults: FieldError[] = [];
  requireText(faults, 'name', input.name, 200);
  check(faults);
  const row = await db.insertInto('accounts').values({ name: input.name.trim() }).returning(['id', 'name', 'created_at']).executeTakeFirstOrThrow();
  return { id: row.id, name: row.name, createdAt: row.created_at.toISOString() };
}

export async function listAccounts(db: Db) {
  const rows = await db.selectFrom('accounts').select(['id', 'name', 'created_at']).orderBy('created_at').execute();
  return rows.map((r) => ({ id: r.id, name: r.name, createdAt: r.created_at.toISOString() }));
}

// ---- facilities ----

export interface FacilityInput {
  accountId: string;
  name: string;
  timeZone: string;
  propertyNumber?: string | null;
  guid?: string | null;
  charityEnrolled?: boolean;
}

function facilityView(r: { id: string; account_id: string; name: string; property_number: string | null; time_zone: string; guid: string | null; charity_enrolled: boolean }) {
  return {
    id: r.id,
    accountId: r.account_id,
    name: r.name,
    propertyNumber: r.property_number,
    timeZone: r.time_zone,
    guid: r.guid,
    charityEnrolled: r.charity_enrolled,
  };
}

export async function createFacility(db: Db, input: FacilityInput) {
  const faults: FieldError[] = [];
  if (!isEntityId(input.accountId)) faults.push({ path: 'accountId', message: 'must be an account id' });
  requireText(faults, 'name', input.name, 200);
  if (typeof input.timeZone !== 'string' || !isTimeZone(input.timeZone)) faults.push({ path: 'timeZone', message: 'must be an IANA time zone such as America/Denver' });
  if (input.propertyNumber != null) requireText(faults, 'propertyNumber', input.propertyNumber, 50);
  if (input.guid != null && (typeof input.guid !== 'string' || !GUID.test(input.guid))) {
    faults.push({ path: 'guid', message: 'must be 1–20 printable characters without spaces' });
  }
  check(faults);
  await existing(db.selectFrom('accounts').select('id').where('id', '=', input.accountId).executeTakeFirst(), 'The account');
  if (input.guid != null) {
    const taken = await db.selectFrom('facilities').select('id').where('guid', '=', input.guid).executeTakeFirst();
    if (taken) throw new AppError(409, 'GUID_TAKEN', `The guid ${input.guid} is already assigned to another facility.`, [{ path: 'guid', message: 'is already in use' }]);
  }
  const row = await db
    .insertInto('facilities')
    .values({
      account_id: input.accountId,
      name: input.name.trim(),
      time_zone: input.timeZone,
      property_number: input.propertyNumber ?? null,
      guid: input.guid ?? null,
      charity_enrolled: input.charityEnrolled ?? false,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return facilityView(row);
}

export async function listFacilities(db: Db, accountId?: string) {
  let query = db.selectFrom('facilities').selectAll().orderBy('created_at');
  if (accountId) {
    if (!isEntityId(accountId)) return [];
    query = query.where('account_id', '=', accountId);
  }
  return (await query.execute()).map(facilityView);
}

// ---- applications ----

export interface ApplicationInput {
  name: string;
  clientType?: string | null;
  facilityGuids?: string[];
  operator?: boolean;
}

export async function createApplication(db: Db, input: ApplicationInput) {
  const faults: FieldError[] = [];
  requireText(faults, 'name', input.name, 200);
  if (input.clientType != null) requireText(faults, 'clientType', input.clientType, 100);
  const guids = input.facilityGuids ?? [];
  guids.forEach((guid, i) => {
    if (typeof guid !== 'string' || !GUID.test(guid)) faults.push({ path: `facilityGuids[${i}]`, message: 'must be 1–20 printable characters without spaces' });
  });
  if (guids.length > 0 && input.clientType == null) faults.push({ path: 'facilityGuids', message: 'needs a clientType: facilities are assigned to auction partners' });
  if (input.operator && input.clientType != null) faults.push({ path: 'operator', message: 'an operator application cannot also be an auction partner' });
  check(faults);
  const clientId = randomToken('app', 12);
  const clientSecret = randomToken('gh_cs');
  const row = await db
    .insertInto('applications')
    .values({
      client_id: clientId,
      secret_hash: await hashSecret(clientSecret),
      name: input.name.trim(),
      client_type: input.clientType ?? null,
      facility_guids: [...new Set(guids)],
      is_operator: input.operator ?? false,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: row.id, clientId, clientSecret };
}

export async function listApplications(db: Db) {
  const rows = await db.selectFrom('applications').selectAll().orderBy('created_at').execute();
  return rows.map((r) => ({
    id: r.id,
    clientId: r.client_id,
    name: r.name,
    clientType: r.client_type,
    facilityGuids: r.facility_guids,
    operator: r.is_operator,
    createdAt: r.created_at.toISOString(),
    revokedAt: r.revoked_at?.toISOString() ?? null,
  }));
}

export async function revokeApplication(db: Db, clientId: string) {
  const row = await db.updateTable('applications').set({ revoked_at: new Date() }).where('client_id', '=', clientId).where('revoked_at', 'is', null).returning('client_id').executeTakeFirst();
  if (!row) throw notFound('An active application with that client id');
  await revokeRefreshFamilies(db, 'application', clientId);
  return { clientId, revoked: true as const };
}

// ---- account credentials ----

export async function createAccountKey(db: Db, input: { accountId: string; clientId: string; scopes?: string[] }) {
  const faults: FieldError[] = [];
  if (!isEntityId(input.accountId)) faults.push({ path: 'accountId', message: 'must be an account id' });
  if (typeof input.clientId !== 'string' || input.clientId.length === 0) faults.push({ path: 'clientId', message: 'is required' });
  const scopes = input.scopes ?? DEFAULT_ACCOUNT_SCOPES;
  const allowed = new Set<string>(DEFAULT_ACCOUNT_SCOPES);
  scopes.forEach((scope, i) => {
    if (!isScope(scope) || !allowed.has(scope)) faults.push({ path: `scopes[${i}]`, message: `must be one of ${DEFAULT_ACCOUNT_SCOPES.join(', ')}` });
  });
  if (scopes.length === 0) faults.push({ path: 'scopes', message: 'must name at least one scope' });
  check(faults);
  await existing(db.selectFrom('accounts').select('id').where('id', '=', input.accountId).executeTakeFirst(), 'The account');
  const app = await existing(
    db.selectFrom('applications').select(['id', 'client_type', 'is_operator']).where('client_id', '=', input.clientId).where('revoked_at', 'is', null).executeTakeFirst(),
    'An active application with that client id',
  );
  if (app.is_operator) throw validationFailed([{ path: 'clientId', message: 'is an operator application; account keys are for PMS applications' }]);
  const apiKey = randomToken('key', 12);
  const apiSecret = randomToken('gh_as');
  const row = await db
    .insertInto('account_credentials')
    .values({ api_key: apiKey, secret_hash: await hashSecret(apiSecret), account_id: input.accountId, application_id: app.id, scopes: [...new Set(scopes)] })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: row.id, apiKey, apiSecret };
}

export async function listAccountKeys(db: Db, accountId?: string) {
  let query = db
    .selectFrom('account_credentials as c')
    .innerJoin('applications as a', 'a.id', 'c.application_id')
    .select(['c.id', 'c.api_key', 'c.account_id', 'a.client_id', 'c.scopes', 'c.created_at', 'c.revoked_at'])
    .orderBy('c.created_at');
  if (accountId) {
    if (!isEntityId(accountId)) return [];
    query = query.where('c.account_id', '=', accountId);
  }
  return (await query.execute()).map((r) => ({
    id: r.id,
    apiKey: r.api_key,
    accountId: r.account_id,
    clientId: r.client_id,
    scopes: r.scopes,
    createdAt: r.created_at.toISOString(),
    revokedAt: r.revoked_at?.toISOString() ?? null,
  }));
}

export async function revokeAccountKey(db: Db, apiKey: string) {
  const row = await db.updateTable('account_credentials').set({ revoked_at: new Date() }).where('api_key', '=', apiKey).where('revoked_at', 'is', null).returning('id').executeTakeFirst();
  if (!row) throw notFound('An active account key with that API key');
  await db.updateTable('refresh_tokens').set({ revoked_at: new Date() }).where('credential_kind', '=', 'account').where('credential_id', '=', row.id).where('revoked_at', 'is', null).execute();
  return { apiKey, revoked: true as const };
}

// ---- gateway credentials ----

export async function createGatewayCredential(db: Db, input: { facilityId: string }) {
  if (!isEntityId(input.facilityId)) throw validationFailed([{ path: 'facilityId', message: 'must be a facility id' }]);
  await existing(db.selectFrom('facilities').select('id').where('id', '=', input.facilityId).executeTakeFirst(), 'The facility');
  const clientId = randomToken('gwc', 12);
  const clientSecret = randomToken('gh_gs');
  const row = await db
    .insertInto('gateway_credentials')
    .values({ client_id: clientId, secret_hash: await hashSecret(clientSecret), facility_id: input.facilityId })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: row.id, clientId, clientSecret };
}

export async function listGatewayCredentials(db: Db, facilityId?: string) {
  let query = db.selectFrom('gateway_credentials').select(['id', 'client_id', 'facility_id', 'created_at', 'revoked_at']).orderBy('created_at');
  if (facilityId) {
    if (!isEntityId(facilityId)) return [];
    query = query.where('facility_id', '=', facilityId);
  }
  return (await query.execute()).map((r) => ({
    id: r.id,
    clientId: r.client_id,
    facilityId: r.facility_id,
    createdAt: r.created_at.toISOString(),
    revokedAt: r.revoked_at?.toISOString() ?? null,
  }));
}

export async function revokeGatewayCredential(db: Db, clientId: string) {
  const row = await db.updateTable('gateway_credentials').set({ revoked_at: new Date() }).where('client_id', '=', clientId).where('revoked_at', 'is', null).returning('id').executeTakeFirst();
  if (!row) throw notFound('An active gateway credential with that client id');
  await db.updateTable('refresh_tokens').set({ revoked_at: new Date() }).where('credential_kind', '=', 'gateway').where('credential_id', '=', row.id).where('revoked_at', 'is', null).execute();
  return { clientId, revoked: true as const };
}

async function revokeRefreshFamilies(db: Db, kind: 'application', clientId: string) {
  const app = await db.selectFrom('applications').select('id').where('client_id', '=', clientId).executeTakeFirst();
  if (!app) return;
  await db.updateTable('refresh_tokens').set({ revoked_at: new Date() }).where('credential_kind', '=', kind).where('credential_id', '=', app.id).where('revoked_at', 'is', null).execute();
  // An application's revocation also ends the account keys that authorise it.
  const keys = await db.selectFrom('account_credentials').select('id').where('application_id', '=', app.id).execute();
  if (keys.length > 0) {
    await db.updateTable('refresh_tokens').set({ revoked_at: new Date() }).where('credential_kind', '=', 'account').where('credential_id', 'in', keys.map((k) => k.id)).where('revoked_at', 'is', null).execute();
  }
}

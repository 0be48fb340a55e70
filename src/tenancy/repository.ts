// The tenancy face's SQL: accounts, facilities, applications and the credentials that act for them.
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import type { FacilitiesTable } from './tables.ts';
import { type Selectable, sql, type Updateable } from 'kysely';

export type FacilityRow = Selectable<FacilitiesTable>;
/** Who may name facilities: an account (its own), or an application (the facilities its list names). */
export type FacilityHolder = { kind: 'account'; accountId: EntityId } | { kind: 'partner'; applicationId: string };
export type CredentialKind = 'application' | 'account' | 'gateway';

export const insertAccount = (db: Db, name: string) =>
  db
    .insertInto('accounts')
    .values({ name })
    .returning(['id', 'name', 'created_at', 'sandbox_of'])
    .executeTakeFirstOrThrow();

export const allAccounts = (db: Db) =>
  db.selectFrom('accounts').select(['id', 'name', 'created_at', 'sandbox_of']).orderBy('id').execute();

/** Whether the account is a sandbox (its credentials then carry the sandbox prefixes); null when there is no such account. */
export const accountIsSandbox = async (db: Db, id: EntityId): Promise<boolean | null> => {
  const row = await db.selectFrom('accounts').select('sandbox_of').where('id', '=', id).executeTakeFirst();
  return row ? row.sandbox_of !== null : null;
};

/** Whether the facility's account is a sandbox; null when there is no such facility. */
export const facilityIsSandbox = async (db: Db, id: EntityId): Promise<boolean | null> => {
  const row = await db
    .selectFrom('facilities as f')
    .innerJoin('accounts as a', 'a.id', 'f.account_id')
    .select('a.sandbox_of')
    .where('f.id', '=', id)
    .executeTakeFirst();
  return row ? row.sandbox_of !== null : null;
};

export const accountExists = async (db: Db, id: EntityId) =>
  Boolean(await db.selectFrom('accounts').select('id').where('id', '=', id).executeTakeFirst());

export const facilityExists = async (db: Db, id: EntityId) =>
  Boolean(await db.selectFrom('facilities').select('id').where('id', '=', id).executeTakeFirst());

export const insertFacility = (db: Db, values: Omit<FacilityRow, 'id' | 'created_at'>) =>
  db.insertInto('facilities').values(values).returningAll().executeTakeFirstOrThrow();

/** The facility, its row locked until the transaction ends. */
export const lockFacility = (trx: Db, id: EntityId) =>
  trx.selectFrom('facilities').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();

/** Sets the columns given; the facility as it now is. */
export const updateFacilityRow = (trx: Db, id: EntityId, values: Updateable<FacilitiesTable>) =>
  trx.updateTable('facilities').set(values).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

export function facilitiesOf(db: Db, accountId: EntityId | null) {
  let query = db.selectFrom('facilities').selectAll().orderBy('id');
  if (accountId !== null) query = query.where('account_id', '=', accountId);
  return query.execute();
}

/** Which of these facilities an account owns, or an application's list of facilities names. */
export async function facilityIdsAmong(db: Db, holder: FacilityHolder, ids: readonly EntityId[]): Promise<EntityId[]> {
  const { rows } = await sql<{ id: string | number }>`
    select f.id from facilities f
     where f.id = any(${ids}::int8[])
       and ${
         holder.kind === 'account'
           ? sql`f.account_id = ${holder.accountId}::int8`
           : // A join, not `any((select facility_guids …))`: PostgreSQL reads that as a sub-select whose one
             // row is the whole array (text = text[], an error), not as the array.
             sql`exists (select 1 from applications ap where ap.id = ${holder.applicationId}::uuid and f.guid = any(ap.facility_guids))`
       }`.execute(db);
  return rows.map((r) => Number(r.id));
}

export const facilityById = (db: Db, id: EntityId) =>
  db.selectFrom('facilities').selectAll().where('id', '=', id).executeTakeFirst();

export const insertApplication = (
  db: Db,
  values: {
    client_id: string;
    secret_hash: string;
    name: string;
    client_type: string | null;
    facility_guids: string[];
    is_operator: boolean;
  },
) => db.insertInto('applications').values(values).returning('id').executeTakeFirstOrThrow();

export const allApplications = (db: Db) => db.selectFrom('applications').selectAll().orderBy('created_at').execute();
export type ApplicationRow = Awaited<ReturnType<typeof allApplications>>[number];

export const applicationByClientId = (db: Db, clientId: string) =>
  db.selectFrom('applications').selectAll().where('client_id', '=', clientId).executeTakeFirst();

export const activeApplication = (db: Db, clientId: string) =>
  db
    .selectFrom('applications')
    .select(['id', 'client_type', 'is_operator'])
    .where('client_id', '=', clientId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();

export const insertAccountKey = (
  db: Db,
  values: { api_key: string; secret_hash: string; account_id: EntityId; application_id: string; scopes: string[] },
) => db.insertInto('account_credentials').values(values).returning('id').executeTakeFirstOrThrow();

export function accountKeysOf(db: Db, accountId: EntityId | null) {
  let query = db
    .selectFrom('account_credentials as c')
    .innerJoin('applications as a', 'a.id', 'c.application_id')
    .select(['c.id', 'c.api_key', 'c.account_id', 'a.client_id', 'c.scopes', 'c.created_at', 'c.revoked_at'])
    .orderBy('c.created_at');
  if (accountId !== null) query = query.where('c.account_id', '=', accountId);
  return query.execute();
}

export const insertGatewayCredential = (
  db: Db,
  values: { client_id: string; secret_hash: string; facility_id: EntityId },
) => db.insertInto('gateway_credentials').values(values).returning('id').executeTakeFirstOrThrow();

export function gatewayCredentialsOf(db: Db, facilityId: EntityId | null) {
  let query = db
    .selectFrom('gateway_credentials')
    .select(['id', 'client_id', 'facility_id', 'created_at', 'revoked_at'])
    .orderBy('created_at');
  if (facilityId !== null) query = query.where('facility_id', '=', facilityId);
  return query.execute();
}

/**
 * Revokes a credential and the refresh tokens issued to it, in one transaction; an application's
 * revocation also ends the refresh tokens of the account keys that authorise it. Returns false
 * when there is no such active credential.
 */
export function revokeCredential(db: Db, kind: CredentialKind, publicId: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const now = new Date();
    const revoked =
      kind === 'application'
        ? await trx
            .updateTable('applications')
            .set({ revoked_at: now })
            .where('client_id', '=', publicId)
            .where('revoked_at', 'is', null)
            .returning('id')
            .executeTakeFirst()
        : kind === 'account'
          ? await trx
              .updateTable('account_credentials')
              .set({ revoked_at: now })
              .where('api_key', '=', publicId)
              .where('revoked_at', 'is', null)
              .returning('id')
              .executeTakeFirst()
          : await trx
              .updateTable('gateway_credentials')
              .set({ revoked_at: now })
              .where('client_id', '=', publicId)
              .where('revoked_at', 'is', null)
              .returning('id')
              .executeTakeFirst();
    if (!revoked) return false;
    await revokeRefreshTokens(trx, kind, [revoked.id]);
    if (kind === 'application') {
      const keys = await trx
        .selectFrom('account_credentials')
        .select('id')
        .where('application_id', '=', revoked.id)
        .execute();
      await revokeRefreshTokens(
        trx,
        'account',
        keys.map((k) => k.id),
      );
    }
    return true;
  });
}

async function revokeRefreshTokens(db: Db, kind: CredentialKind, credentialIds: string[]): Promise<void> {
  if (credentialIds.length === 0) return;
  await db
    .updateTable('refresh_tokens')
    .set({ revoked_at: new Date() })
    .where('credential_kind', '=', kind)
    .where('credential_id', 'in', credentialIds)
    .where('revoked_at', 'is', null)
    .execute();
}

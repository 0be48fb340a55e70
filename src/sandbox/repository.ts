// The sandbox face's SQL. A sandbox is an `accounts` row with `sandbox_of` (its owner) and
// `last_used_at`; its seeded facilities are listed in `sandbox_facilities`.
import { sql } from 'kysely';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import type { FacilitySize } from './rules.ts';

/** The owner's row, locked until the transaction ends: two creations for one owner are decided one after the other. */
export const lockOwner = (trx: Db, ownerId: EntityId) =>
  trx.selectFrom('accounts').select(['id', 'sandbox_of']).where('id', '=', ownerId).forUpdate().executeTakeFirst();

export async function countSandboxes(trx: Db, ownerId: EntityId): Promise<number> {
  const row = await trx
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('sandbox_of', '=', ownerId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export const insertSandboxAccount = (trx: Db, values: { name: string; ownerId: EntityId; lastUsedAt: Date }) =>
  trx
    .insertInto('accounts')
    .values({ name: values.name, sandbox_of: values.ownerId, last_used_at: values.lastUsedAt })
    .returning(['id', 'name', 'sandbox_of', 'created_at', 'last_used_at'])
    .executeTakeFirstOrThrow();

export const insertSandboxFacility = (
  trx: Db,
  values: { facilityId: EntityId; accountId: EntityId; size: FacilitySize },
) =>
  trx
    .insertInto('sandbox_facilities')
    .values({ facility_id: values.facilityId, account_id: values.accountId, size: values.size })
    .execute();

export interface SandboxRow {
  id: EntityId;
  name: string;
  sandbox_of: EntityId;
  created_at: Date;
  last_used_at: Date;
}

/** An owner's sandboxes (newest first), or one of them. */
export async function sandboxesOf(db: Db, ownerId: EntityId, sandboxId?: EntityId): Promise<SandboxRow[]> {
  let query = db
    .selectFrom('accounts')
    .select(['id', 'name', 'sandbox_of', 'created_at', 'last_used_at'])
    .where('sandbox_of', '=', ownerId)
    .orderBy('id', 'desc');
  if (sandboxId !== undefined) query = query.where('id', '=', sandboxId);
  const rows = await query.execute();
  // created_at stands in for a last use never recorded (a row written by hand).
  return rows.map((r) => ({ ...r, sandbox_of: r.sandbox_of!, last_used_at: r.last_used_at ?? r.created_at }));
}

export interface SandboxFacilityRow {
  account_id: EntityId;
  facility_id: EntityId;
  name: string;
  size: FacilitySize;
  units: number;
  visitors: number;
}

/**
 * The facilities of these sandboxes with what they hold now (live units and visitors: the seeded ones
 * and whatever the integrator made since). Counted here rather than through access control: one
 * statement for a whole list.
 */
export async function facilitiesOfSandboxes(db: Db, accountIds: readonly EntityId[]): Promise<SandboxFacilityRow[]> {
  if (accountIds.length === 0) return [];
  const { rows } = await sql<SandboxFacilityRow>`
    select sf.account_id, sf.facility_id, f.name, sf.size,
           (select count(*) from units u where u.facility_id = sf.facility_id and u.deleted_at is null)::int as units,
           (select count(*) from visitors v where v.facility_id = sf.facility_id and v.removed_at is null)::int as visitors
      from sandbox_facilities sf join facilities f on f.id = sf.facility_id
     where sf.account_id = any(${accountIds}::int8[])
     order by sf.facility_id`.execute(db);
  return rows.map((r) => ({ ...r, account_id: Number(r.account_id), facility_id: Number(r.facility_id) }));
}

/** The sandbox's row locked, when it is one of the owner's (else undefined): its deletion holds it. */
export const lockSandbox = (trx: Db, ownerId: EntityId, sandboxId: EntityId) =>
  trx
    .selectFrom('accounts')
    .select(['id', 'last_used_at', 'created_at'])
    .where('id', '=', sandboxId)
    .where('sandbox_of', '=', ownerId)
    .forUpdate()
    .executeTakeFirst();

/**
 * A sandbox's last use, written only when the one recorded is older than `staleBefore` (and only for a
 * sandbox): the last use it replaced (null when none was recorded), or undefined when nothing was written.
 */
export async function touchLastUse(
  db: Db,
  sandboxId: EntityId,
  now: Date,
  staleBefore: Date,
): Promise<Date | null | undefined> {
  // The self-join's row is the one before the update: the statement says what it replaced.
  const { rows } = await sql<{ before: Date | null }>`
    update accounts a set last_used_at = ${now}
      from accounts old
     where a.id = ${sandboxId}::int8 and old.id = a.id and a.sandbox_of is not null
       and (a.last_used_at is null or a.last_used_at < ${staleBefore})
    returning old.last_used_at as before`.execute(db);
  return rows.length === 0 ? undefined : rows[0]!.before;
}

/** Sandboxes last used before the cutoff, with their owner (the expiry job's list). */
export const sandboxesUnusedSince = (db: Db, cutoff: Date) =>
  db
    .selectFrom('accounts')
    .select(['id', 'sandbox_of'])
    .where('sandbox_of', 'is not', null)
    .where((eb) => eb(eb.fn.coalesce('last_used_at', 'created_at'), '<', cutoff))
    .orderBy('id')
    .execute();

/**
 * Every row of a sandbox, deleted in the caller's transaction (the sandbox row locked by it): its
 * events (every partition; the events' append-only trigger lets a sandbox's go, 0017), what its
 * facilities hold in every face, its credentials and their refresh tokens, its facilities, and the
 * account itself. The one place an account's rows are removed: a table added later with an account or
 * facility column must be added here — test/sandbox/sandboxes.test.ts derives the tables from the schema
 * and fails on one left behind (and a foreign key without a cascade fails the deletion itself).
 */
export async function deleteSandboxRows(trx: Db, sandboxId: EntityId): Promise<void> {
  // Only ever a sandbox's rows: a production account's are never deleted here, whatever the caller passed.
  const row = await trx.selectFrom('accounts').select('sandbox_of').where('id', '=', sandboxId).executeTakeFirst();
  if (!row || row.sandbox_of === null) throw new Error(`account ${sandboxId} is not a sandbox: nothing deleted`);
  const account = sql`${sandboxId}::int8`;
  const facilities = sql`(select id from facilities where account_id = ${account})`;
  const auctions = sql`(select id from auctions where facility_id in ${facilities})`;
  const statements = [
    sql`delete from gateway_events where account_id = ${account}`,
    sql`delete from gateway_event_ids where facility_id in ${facilities}`,
    // Their deliveries go with them (on delete cascade).
    sql`delete from webhook_subscriptions where account_id = ${account}`,
    sql`delete from support_notification_auctions where auction_id in ${auctions}
          or notification_id in (select id from support_notifications where facility_id in ${facilities})`,
    sql`delete from support_notifications where facility_id in ${facilities} or auction_id in ${auctions}`,
    sql`delete from auction_history where auction_id in ${auctions}`,
    sql`delete from auction_images where auction_id in ${auctions}`,
    sql`delete from auctions where facility_id in ${facilities}`,
    sql`delete from remote_actions where facility_id in ${facilities}`,
    sql`delete from drifts where facility_id in ${facilities}`,
    sql`delete from maintenance_windows where facility_id in ${facilities}`,
    sql`delete from facility_status_changes where facility_id in ${facilities} or account_id = ${account}`,
    sql`delete from facility_recorded_statuses where facility_id in ${facilities}`,
    sql`delete from facility_alarms where facility_id in ${facilities}`,
    sql`delete from facility_devices where facility_id in ${facilities}`,
    sql`delete from facility_states where facility_id in ${facilities} or account_id = ${account}`,
    sql`delete from action_groups where facility_id in ${facilities}`,
    sql`delete from commands where facility_id in ${facilities}`,
    sql`delete from command_sequences where facility_id in ${facilities}`,
    sql`delete from code_reads where facility_id in ${facilities} or account_id = ${account}`,
    sql`delete from visitors where facility_id in ${facilities}`,
    sql`delete from units where facility_id in ${facilities}`,
    sql`delete from time_groups where facility_id in ${facilities}`,
    sql`delete from access_profiles where facility_id in ${facilities}`,
    sql`delete from sandbox_facilities where account_id = ${account} or facility_id in ${facilities}`,
    // The guard reads a deleted credential like a revoked one: its tokens are refused within seconds, here too.
    sql`insert into deleted_credentials (credential_kind, credential_id)
        select 'account', id from account_credentials where account_id = ${account}
        union all
        select 'gateway', id from gateway_credentials where facility_id in ${facilities}
        on conflict do nothing`,
    sql`delete from refresh_tokens
         where (credential_kind = 'account' and credential_id in (select id from account_credentials where account_id = ${account}))
            or (credential_kind = 'gateway' and credential_id in
                 (select id from gateway_credentials where facility_id in ${facilities}))`,
    sql`delete from gateway_credentials where facility_id in ${facilities}`,
    sql`delete from account_credentials where account_id = ${account}`,
    sql`delete from facilities where account_id = ${account}`,
    sql`delete from accounts where id = ${account} and sandbox_of is not null`,
  ];
  for (const statement of statements) await statement.execute(trx);
}

/** Forgets the deleted credentials older than `before` (no token of theirs can be in force any more). */
export async function purgeDeletedCredentials(db: Db, before: Date): Promise<number> {
  const result = await db.deleteFrom('deleted_credentials').where('deleted_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

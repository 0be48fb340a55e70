// Sandboxes: an integrator's accounts of their own, owned by a production account — created (with
// facilities seeded on request and credentials shown once), listed, read, deleted with every row, kept
// 30 days after their last use. Each is an account, so every isolation rule (keyed by account) holds
// for it by construction; what marks it is its owner (`sandbox_of`).
import type { Db } from '../db/tables.ts';
import { AppError, conflict, forbidden, notFound, validationFailed } from '../errors.ts';
import { ACCOUNT_KEY_SCOPES, type Principal } from '../http/caller.ts';
import { type EntityId, parseEntityId } from '../ids.ts';
import * as repository from './repository.ts';
import {
  expiresAt,
  expiryCutoff,
  FACILITY_SIZES,
  type FacilitySize,
  judgeSandboxRequest,
  LAST_USE_RESOLUTION_MS,
  lastUseIsFresh,
  wasIdle,
  SANDBOX_LIMIT,
  SEEDED_TIME_ZONE,
} from './rules.ts';
import type { SandboxParts } from './deps.ts';

export interface SandboxFacilityView {
  id: EntityId;
  name: string;
  size: FacilitySize;
  /** Live units and visitors now (the seeded ones and whatever was made since). */
  units: number;
  visitors: number;
}

export interface SandboxView {
  id: EntityId;
  name: string;
  ownerAccountId: EntityId;
  createdAt: string;
  lastUsedAt: string;
  /** When the daily job deletes it, unless it is used again before. */
  expiresAt: string;
  facilities: SandboxFacilityView[];
}

/** A new sandbox with its credentials: the secrets are shown here only. */
export interface CreatedSandbox extends SandboxView {
  credentials: {
    /** The sandbox account's key: the password grant's username and password, with the application's client id. */
    accountKey: { apiKey: string; apiSecret: string; clientId: string };
    /** One controller credential per seeded facility (client credentials grant). */
    gateways: { facilityId: EntityId; clientId: string; clientSecret: string }[];
  };
}

export interface CreateSandboxInput {
  /** The production account that owns it (the caller's own account, or the one the operator names). */
  ownerAccountId: EntityId | string;
  /** The PMS application the sandbox's account key is bound to (the caller's own, for an account's token). */
  clientId: string;
  /** The key's scopes (tenancy's defaults for an account key when absent). */
  scopes?: string[];
  name?: unknown;
  facilities?: unknown;
}

const sandboxCannotOwnSandboxes = () =>
  new AppError(
    403,
    'SANDBOX_CANNOT_OWN_SANDBOXES',
    'A sandbox cannot create sandboxes: use a credential of the production account that owns it.',
  );

/**
 * What a caller's token says of the sandboxes it may manage: its own account's (a production account's
 * key), bound to its own application, with at most its own scopes. A sandbox's token is refused here
 * (403: the route exists and the token is valid, but a sandbox owns no sandboxes); so is any other kind.
 */
export function ownerOf(principal: Principal): { ownerAccountId: EntityId; clientId: string; scopes: string[] } {
  if (principal.kind !== 'account') throw forbidden('Sandboxes belong to accounts: use an account key’s token.');
  if (principal.sandbox) throw sandboxCannotOwnSandboxes();
  const scopes = principal.scopes.filter((scope) => ACCOUNT_KEY_SCOPES.includes(scope));
  return { ownerAccountId: principal.accountId, clientId: principal.clientId, scopes };
}

const ownerIdOf = (value: EntityId | string): EntityId => {
  const id = parseEntityId(value);
  if (id === null) throw notFound('The account');
  return id;
};

export async function createSandbox(parts: SandboxParts, input: CreateSandboxInput): Promise<CreatedSandbox> {
  const judged = judgeSandboxRequest(input);
  if (!judged.ok) throw validationFailed(judged.faults);
  const { name, facilities: sizes } = judged.value;
  const ownerId = ownerIdOf(input.ownerAccountId);
  const started = performance.now();
  const created = await parts.db.transaction().execute(async (trx) => {
    // The owner's row is held until the sandbox commits: at five, of two creations at once one is refused.
    const owner = await repository.lockOwner(trx, ownerId);
    if (!owner) throw notFound('The account');
    if (owner.sandbox_of !== null) throw sandboxCannotOwnSandboxes();
    if ((await repository.countSandboxes(trx, ownerId)) >= SANDBOX_LIMIT)
      throw conflict('SANDBOX_LIMIT', `An account has at most ${SANDBOX_LIMIT} sandboxes: delete one to make another.`);
    const tenancy = parts.tenancyIn(trx);
    const account = await repository.insertSandboxAccount(trx, {
      name,
      ownerId,
      lastUsedAt: new Date(parts.clock.now()),
    });
    // Tenancy makes the credentials; an account with an owner gets the sandbox prefixes (sbkey_, gh_sbs_, …).
    const key = await tenancy.createAccountKey({
      accountId: account.id,
      clientId: input.clientId,
      scopes: input.scopes,
    });
    const facilities: SandboxFacilityView[] = [];
    const gateways: CreatedSandbox['credentials']['gateways'] = [];
    for (const [i, size] of sizes.entries()) {
      const facility = await tenancy.createFacility({
        accountId: account.id,
        name: `${size[0]!.toUpperCase()}${size.slice(1)} facility ${i + 1}`,
        timeZone: SEEDED_TIME_ZONE,
      });
      await repository.insertSandboxFacility(trx, { facilityId: facility.id, accountId: account.id, size });
      // The facility's initial state, without a command per row. Hook for issue 30 part B: the facility's
      // simulated controller starts from a full refresh (access control's `refresh`), which hands it all of this.
      const seeded = await parts.seedInitialState(trx, facility, FACILITY_SIZES[size]);
      const gateway = await tenancy.createGatewayCredential({ facilityId: facility.id });
      await parts.addController(trx, facility.id);
      facilities.push({ id: facility.id, name: facility.name, size, ...seeded });
      gateways.push({ facilityId: facility.id, clientId: gateway.clientId, clientSecret: gateway.clientSecret });
    }
    return { account, key, facilities, gateways };
  });
  parts.logger.info(
    {
      sandboxId: created.account.id,
      ownerAccountId: ownerId,
      facilities: sizes,
      ms: Math.round(performance.now() - started),
    },
    'sandbox created',
  );
  const { account, key, facilities, gateways } = created;
  return {
    ...sandboxView({ ...account, sandbox_of: ownerId, last_used_at: account.last_used_at! }, facilities),
    credentials: { accountKey: { apiKey: key.apiKey, apiSecret: key.apiSecret, clientId: input.clientId }, gateways },
  };
}

function sandboxView(row: repository.SandboxRow, facilities: SandboxFacilityView[]): SandboxView {
  return {
    id: row.id,
    name: row.name,
    ownerAccountId: row.sandbox_of,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at.toISOString(),
    expiresAt: expiresAt(row.last_used_at).toISOString(),
    facilities,
  };
}

async function views(db: Db, rows: repository.SandboxRow[]): Promise<SandboxView[]> {
  const facilities = await repository.facilitiesOfSandboxes(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((row) =>
    sandboxView(
      row,
      facilities
        .filter((f) => f.account_id === row.id)
        .map((f) => ({ id: f.facility_id, name: f.name, size: f.size, units: f.units, visitors: f.visitors })),
    ),
  );
}

/** The owner's sandboxes, newest first (none for a sandbox, or an id that is no account). */
export async function listSandboxes(parts: Pick<SandboxParts, 'db'>, ownerAccountId: EntityId | string) {
  const ownerId = parseEntityId(ownerAccountId);
  return ownerId === null ? [] : views(parts.db, await repository.sandboxesOf(parts.db, ownerId));
}

/** One of the owner's sandboxes; another owner's, or a production account, is not found (404). */
export async function getSandbox(
  parts: Pick<SandboxParts, 'db'>,
  ownerAccountId: EntityId | string,
  sandboxId: EntityId | string,
): Promise<SandboxView> {
  const ownerId = parseEntityId(ownerAccountId);
  const id = parseEntityId(sandboxId);
  const rows = ownerId === null || id === null ? [] : await repository.sandboxesOf(parts.db, ownerId, id);
  const [view] = await views(parts.db, rows);
  if (!view) throw notFound('The sandbox');
  return view;
}

/** Deletes one of the owner's sandboxes with every row it has (404 when it is not one of the owner's). */
export async function deleteSandbox(
  parts: Pick<SandboxParts, 'db' | 'logger'>,
  ownerAccountId: EntityId | string,
  sandboxId: EntityId | string,
): Promise<void> {
  const ownerId = parseEntityId(ownerAccountId);
  const id = parseEntityId(sandboxId);
  if (ownerId === null || id === null) throw notFound('The sandbox');
  const deleted = await parts.db.transaction().execute(async (trx) => {
    if (!(await repository.lockSandbox(trx, ownerId, id))) return false;
    await repository.deleteSandboxRows(trx, id);
    return true;
  });
  if (!deleted) throw notFound('The sandbox');
  parts.logger.info({ sandboxId: id, ownerAccountId: ownerId }, 'sandbox deleted');
}

/**
 * Deletes every sandbox last used more than 30 days before the clock's now (the daily job), each in a
 * transaction of its own, by the same deletion as DELETE; one used meanwhile (its row re-read under
 * the lock) is kept. The number deleted.
 */
export async function deleteExpiredSandboxes(parts: Pick<SandboxParts, 'db' | 'clock' | 'logger'>): Promise<number> {
  const cutoff = expiryCutoff(parts.clock.now());
  let deleted = 0;
  for (const { id, sandbox_of: ownerId } of await repository.sandboxesUnusedSince(parts.db, cutoff)) {
    const gone = await parts.db.transaction().execute(async (trx) => {
      const row = await repository.lockSandbox(trx, ownerId!, id);
      if (!row || (row.last_used_at ?? row.created_at) >= cutoff) return false;
      await repository.deleteSandboxRows(trx, id);
      return true;
    });
    if (gone) {
      deleted++;
      parts.logger.info({ sandboxId: id, ownerAccountId: ownerId }, 'sandbox deleted: unused for 30 days');
    }
  }
  return deleted;
}

/**
 * A sandbox was used (a token issued to one of its credentials, or a request with its account key's
 * token): its last use is now. Written at most once a minute per sandbox (remembered here, and the
 * statement writes only a last use older than that), never per request. A sandbox idle until now — its
 * controllers stopped — has them resumed at once, not at the next minute's claim.
 */
export async function recordSandboxUse(
  parts: Pick<SandboxParts, 'db' | 'clock' | 'lastUses' | 'resumeControllers'>,
  sandboxId: EntityId,
): Promise<void> {
  const now = parts.clock.now();
  if (lastUseIsFresh(parts.lastUses.get(sandboxId), now)) return;
  if (parts.lastUses.size >= 10_000) parts.lastUses.clear();
  parts.lastUses.set(sandboxId, now);
  const before = await repository.touchLastUse(
    parts.db,
    sandboxId,
    new Date(now),
    new Date(now - LAST_USE_RESOLUTION_MS),
  );
  if (before !== undefined && wasIdle(before, now)) await parts.resumeControllers();
}

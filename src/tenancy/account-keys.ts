// Account keys: an API key and secret with which an account authorises a PMS application to act on
// it, with the scopes the operator grants. The secret is shown once, stored hashed.
import { ACCOUNT_KEY_SCOPES, DEFAULT_ACCOUNT_SCOPES, isScope } from '../http/caller.ts';
import { hashSecret, randomToken } from '../auth/index.ts';
import type { Db } from '../db/tables.ts';
import { notFound, validationFailed, type FieldError } from '../errors.ts';
import { type EntityId, parseEntityId } from '../ids.ts';
import * as repository from './repository.ts';
import { CREDENTIAL_PREFIXES, refuseFaults } from './rules.ts';

export async function createAccountKey(
  db: Db,
  input: { accountId: EntityId | string; clientId: string; scopes?: string[] },
) {
  const faults: FieldError[] = [];
  const accountId = parseEntityId(input.accountId);
  if (accountId === null) faults.push({ path: 'accountId', message: 'must be an account id (a positive integer)' });
  if (typeof input.clientId !== 'string' || input.clientId.length === 0)
    faults.push({ path: 'clientId', message: 'is required' });
  const scopes = input.scopes ?? DEFAULT_ACCOUNT_SCOPES;
  const allowed = new Set<string>(ACCOUNT_KEY_SCOPES);
  scopes.forEach((scope, i) => {
    if (!isScope(scope) || !allowed.has(scope))
      faults.push({ path: `scopes[${i}]`, message: `must be one of ${ACCOUNT_KEY_SCOPES.join(', ')}` });
  });
  if (scopes.length === 0) faults.push({ path: 'scopes', message: 'must name at least one scope' });
  refuseFaults(faults);
  const sandbox = await repository.accountIsSandbox(db, accountId!);
  if (sandbox === null) throw notFound('The account');
  const app = await repository.activeApplication(db, input.clientId);
  if (!app) throw notFound('An active application with that client id');
  if (app.is_operator) {
    throw validationFailed([
      { path: 'clientId', message: 'is an operator application; account keys are for PMS applications' },
    ]);
  }
  // A sandbox's key is recognisable at a glance (sbkey_…, gh_sbs_…): an integrator never mistakes it for production.
  const prefixes = CREDENTIAL_PREFIXES[sandbox ? 'sandbox' : 'production'];
  const apiKey = randomToken(prefixes.accountKey, 12);
  const apiSecret = randomToken(prefixes.accountSecret);
  const row = await repository.insertAccountKey(db, {
    api_key: apiKey,
    secret_hash: hashSecret(apiSecret),
    account_id: accountId!,
    application_id: app.id,
    scopes: [...new Set(scopes)],
  });
  return { id: row.id, apiKey, apiSecret };
}

/** Every account key, or an account's (none for a value that cannot be an account id). */
export async function listAccountKeys(db: Db, accountId?: EntityId | string) {
  const id = accountId === undefined || accountId === '' ? null : parseEntityId(accountId);
  if (accountId !== undefined && accountId !== '' && id === null) return [];
  return (await repository.accountKeysOf(db, id)).map((r) => ({
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
  if (!(await repository.revokeCredential(db, 'account', apiKey)))
    throw notFound('An active account key with that API key');
  return { apiKey, revoked: true as const };
}

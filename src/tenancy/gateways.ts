// Gateway credentials: the client credentials of one facility's gateway controller. The secret is
// shown once, stored hashed.
import { hashSecret, randomToken } from '../auth/index.ts';
import type { Db } from '../db/tables.ts';
import { notFound, validationFailed } from '../errors.ts';
import { type EntityId, parseEntityId } from '../ids.ts';
import * as repository from './repository.ts';
import { CREDENTIAL_PREFIXES } from './rules.ts';

export async function createGatewayCredential(db: Db, input: { facilityId: EntityId | string }) {
  const facilityId = parseEntityId(input.facilityId);
  if (facilityId === null)
    throw validationFailed([{ path: 'facilityId', message: 'must be a facility id (a positive integer)' }]);
  const sandbox = await repository.facilityIsSandbox(db, facilityId);
  if (sandbox === null) throw notFound('The facility');
  // A sandbox facility's controller credential is recognisable at a glance (sbgwc_…, gh_sbgs_…).
  const prefixes = CREDENTIAL_PREFIXES[sandbox ? 'sandbox' : 'production'];
  const clientId = randomToken(prefixes.gatewayClient, 12);
  const clientSecret = randomToken(prefixes.gatewaySecret);
  const row = await repository.insertGatewayCredential(db, {
    client_id: clientId,
    secret_hash: hashSecret(clientSecret),
    facility_id: facilityId,
  });
  return { id: row.id, clientId, clientSecret };
}

/** Every gateway credential, or a facility's (none for a value that cannot be a facility id). */
export async function listGatewayCredentials(db: Db, facilityId?: EntityId | string) {
  const id = facilityId === undefined || facilityId === '' ? null : parseEntityId(facilityId);
  if (facilityId !== undefined && facilityId !== '' && id === null) return [];
  return (await repository.gatewayCredentialsOf(db, id)).map((r) => ({
    id: r.id,
    clientId: r.client_id,
    facilityId: r.facility_id,
    createdAt: r.created_at.toISOString(),
    revokedAt: r.revoked_at?.toISOString() ?? null,
  }));
}

export async function revokeGatewayCredential(db: Db, clientId: string) {
  if (!(await repository.revokeCredential(db, 'gateway', clientId)))
    throw notFound('An active gateway credential with that client id');
  return { clientId, revoked: true as const };
}

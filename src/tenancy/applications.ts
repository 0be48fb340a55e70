// Applications (OAuth clients): PMS vendors, auction partners (with a client type and the facility
// guids they may auction) and the operator's own tools. The secret is shown once, stored hashed.
import { hashSecret, randomToken } from '../auth/index.ts';
import type { Db } from '../db/tables.ts';
import { notFound, type FieldError } from '../errors.ts';
import * as repository from './repository.ts';
import { GUID_RULE, isGuid, refuseFaults, requireText } from './rules.ts';

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
    if (!isGuid(guid)) faults.push({ path: `facilityGuids[${i}]`, message: GUID_RULE });
  });
  if (guids.length > 0 && input.clientType == null) {
    faults.push({ path: 'facilityGuids', message: 'needs a clientType: facilities are assigned to auction partners' });
  }
  if (input.operator && input.clientType != null) {
    faults.push({ path: 'operator', message: 'an operator application cannot also be an auction partner' });
  }
  refuseFaults(faults);
  const clientId = randomToken('app', 12);
  const clientSecret = randomToken('gh_cs');
  const row = await repository.insertApplication(db, {
    client_id: clientId,
    secret_hash: hashSecret(clientSecret),
    name: input.name.trim(),
    client_type: input.clientType ?? null,
    facility_guids: [...new Set(guids)],
    is_operator: input.operator ?? false,
  });
  return { id: row.id, clientId, clientSecret };
}

export async function listApplications(db: Db) {
  return (await repository.allApplications(db)).map(applicationView);
}

/** The application with this client id (the support console names who is signed in); else 404. */
export async function getApplication(db: Db, clientId: string) {
  const row = await repository.applicationByClientId(db, clientId);
  if (!row) throw notFound('An application with that client id');
  return applicationView(row);
}

/** The id of the application with this client id (revoked or not), or null. */
export async function applicationIdOf(db: Db, clientId: string): Promise<string | null> {
  return (await repository.applicationByClientId(db, clientId))?.id ?? null;
}

function applicationView(r: repository.ApplicationRow) {
  return {
    id: r.id,
    clientId: r.client_id,
    name: r.name,
    clientType: r.client_type,
    facilityGuids: r.facility_guids,
    operator: r.is_operator,
    createdAt: r.created_at.toISOString(),
    revokedAt: r.revoked_at?.toISOString() ?? null,
  };
}

/** Ends the application, its refresh tokens, and those of the account keys that authorise it. */
export async function revokeApplication(db: Db, clientId: string) {
  if (!(await repository.revokeCredential(db, 'application', clientId)))
    throw notFound('An active application with that client id');
  return { clientId, revoked: true as const };
}

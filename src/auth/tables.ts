// Table types of the authorization face (migration 0002_tenancy.sql), composed into Tables in src/db/tables.ts.
import type { Generated } from 'kysely';
import type { CreatedAt, Timestamp } from '../db/columns.ts';

export interface RefreshTokensTable {
  id: Generated<string>;
  family_id: string;
  token_hash: string;
  credential_kind: 'account' | 'application' | 'gateway';
  credential_id: string;
  scopes: string[];
  expires_at: Timestamp;
  used_at: Timestamp | null;
  revoked_at: Timestamp | null;
  created_at: CreatedAt;
}

/** A deleted credential's id (a sandbox's, deleted with it: 0017), read by the guard like a revocation. */
export interface DeletedCredentialsTable {
  credential_kind: 'account' | 'gateway';
  credential_id: string;
  deleted_at: CreatedAt;
}

export interface AuthTables {
  refresh_tokens: RefreshTokensTable;
  deleted_credentials: DeletedCredentialsTable;
}

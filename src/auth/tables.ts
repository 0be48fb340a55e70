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

export interface AuthTables {
  refresh_tokens: RefreshTokensTable;
}

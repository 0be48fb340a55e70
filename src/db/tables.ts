// Table types for Kysely: one interface per table, named as the table is.
import type { ColumnType, Generated } from 'kysely';
import type { AccessControlTables } from '../access-control/tables.ts';
import type { AuctionsTables } from '../auctions/tables.ts';
import type { EventsTables } from '../events/tables.ts';

export type Timestamp = ColumnType<Date, Date | string, Date | string>;
/** A timestamp with a database default (now()). */
export type CreatedAt = ColumnType<Date, Date | string | undefined, Date | string>;

export interface GatehouseMigrationsTable {
  version: number;
  name: string;
  checksum: string;
  applied_at: CreatedAt;
}


export interface AccountsTable {
  id: Generated<string>;
  name: string;
  created_at: CreatedAt;
}

export interface FacilitiesTable {
  id: Generated<string>;
  account_id: string;
  name: string;
  property_number: string | null;
  time_zone: string;
  guid: string | null;
  charity_enrolled: Generated<boolean>;
  created_at: CreatedAt;
}

export interface ApplicationsTable {
  id: Generated<string>;
  client_id: string;
  secret_hash: string;
  name: string;
  client_type: string | null;
  facility_guids: Generated<string[]>;
  is_operator: Generated<boolean>;
  created_at: CreatedAt;
  revoked_at: Timestamp | null;
}

export interface AccountCredentialsTable {
  id: Generated<string>;
  api_key: string;
  secret_hash: string;
  account_id: string;
  application_id: string;
  scopes: string[];
  created_at: CreatedAt;
  revoked_at: Timestamp | null;
}

export interface GatewayCredentialsTable {
  id: Generated<string>;
  client_id: string;
  secret_hash: string;
  facility_id: string;
  created_at: CreatedAt;
  revoked_at: Timestamp | null;
}

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

export interface Tables extends EventsTables, AuctionsTables, AccessControlTables {
  gatehouse_migrations: GatehouseMigrationsTable;
  accounts: AccountsTable;
  facilities: FacilitiesTable;
  applications: ApplicationsTable;
  account_credentials: AccountCredentialsTable;
  gateway_credentials: GatewayCredentialsTable;
  refresh_tokens: RefreshTokensTable;
}

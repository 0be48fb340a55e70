// Table types of the tenancy face (migration 0002_tenancy.sql), composed into Tables in src/db/tables.ts.
import type { Generated } from 'kysely';
import type { CreatedAt, Timestamp } from '../db/columns.ts';

export interface AccountsTable {
  id: Generated<number>;
  name: string;
  created_at: CreatedAt;
  /** A sandbox's owner (0017); null for a production account. */
  sandbox_of: number | null;
  /** When a sandbox's credential last got a token (0017; at most once a minute); null for a production account. */
  last_used_at: Timestamp | null;
}

export interface FacilitiesTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  property_number: string | null;
  time_zone: string;
  /** addressLine1 (and its deprecated alias addressLine): the column kept its first name (0012). */
  address_line: string | null;
  address_line2: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
  country: string | null;
  guid: string | null;
  charity_enrolled: Generated<boolean>;
  /** The gate-code rules (0013), read together as accessCodeRules. */
  access_code_characters: Generated<'digits' | 'alphanumeric'>;
  access_code_min_length: Generated<number>;
  access_code_max_length: Generated<number>;
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
  account_id: number;
  application_id: string;
  scopes: string[];
  created_at: CreatedAt;
  revoked_at: Timestamp | null;
}

export interface GatewayCredentialsTable {
  id: Generated<string>;
  client_id: string;
  secret_hash: string;
  facility_id: number;
  created_at: CreatedAt;
  revoked_at: Timestamp | null;
}

export interface TenancyTables {
  accounts: AccountsTable;
  facilities: FacilitiesTable;
  applications: ApplicationsTable;
  account_credentials: AccountCredentialsTable;
  gateway_credentials: GatewayCredentialsTable;
}

// Table types of the access-control face, composed into Tables in src/db/tables.ts.
import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt, Json, Timestamp } from '../db/columns.ts';
import type { TimeWindow, UnitStatus } from './rules.ts';

export interface TimeGroupsTable {
  id: Generated<number>;
  facility_id: number;
  name: string;
  windows: Json<TimeWindow[]>;
  is_default: Generated<boolean>;
  created_at: CreatedAt;
}

export interface AccessProfilesTable {
  id: Generated<number>;
  facility_id: number;
  name: string;
  access_areas: string[] | null;
  is_default: Generated<boolean>;
  created_at: CreatedAt;
}

export interface UnitsTable {
  id: Generated<number>;
  facility_id: number;
  unit_number: string;
  status: ColumnType<UnitStatus, UnitStatus | undefined, UnitStatus>;
  extended_data: Json<Record<string, unknown> | null> | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
  deleted_at: Timestamp | null;
}

export interface VisitorsTable {
  /** Drawn before the insert (nextVisitorId): the sealed code is bound to it. */
  id: number;
  facility_id: number;
  unit_id: number | null;
  first_name: string;
  last_name: string;
  email: string | null;
  mobile_phone_number: string | null;
  contact_method_preference: string | null;
  country_code: string | null;
  is_tenant: boolean;
  is_portal_visitor: Generated<boolean>;
  time_group_id: number;
  access_profile_id: number;
  is_enabled: Generated<boolean>;
  access_code_digest: Buffer;
  access_code_sealed: Buffer;
  extended_data: Json<Record<string, unknown> | null> | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
  removed_at: Timestamp | null;
}

export interface CodeReadsTable {
  id: Generated<number>;
  read_at: CreatedAt;
  account_id: number;
  facility_id: number;
  credential_id: string;
  client_id: string;
  token_id: string;
  request_id: string;
  route: string;
  visitor_ids: number[];
}

export interface AccessCodeKeysTable {
  fingerprint: string;
  created_at: CreatedAt;
}

export interface AccessControlTables {
  time_groups: TimeGroupsTable;
  access_profiles: AccessProfilesTable;
  units: UnitsTable;
  visitors: VisitorsTable;
  access_code_keys: AccessCodeKeysTable;
  code_reads: CodeReadsTable;
}

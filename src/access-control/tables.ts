// Table types of the access-control face, composed into Tables in src/db/tables.ts.
import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt, Json, Timestamp } from '../db/columns.ts';
import type { CommandType, TimeWindow, UnitStatus } from './rules.ts';

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

export interface CommandSequencesTable {
  facility_id: number;
  last_sequence: number;
}

export interface CommandsTable {
  id: Generated<string>;
  facility_id: number;
  sequence: number;
  type: CommandType;
  payload: Json<unknown>;
  created_at: CreatedAt;
  expires_at: Timestamp;
  delivered_at: Timestamp | null;
  acknowledged_at: Timestamp | null;
  /** The transaction that acknowledged it or recorded its expiry (migration 0009). */
  settled_txid: number | null;
  expiry_recorded_at: Timestamp | null;
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

/** What the controller last reported, and what was asked of it (0008_facility_status.sql). */
export interface FacilityStatesTable {
  facility_id: number;
  account_id: number;
  last_event_received_at: Timestamp | null;
  last_polled_at: Timestamp | null;
  emergency_reported: boolean | null;
  emergency_reported_at: Timestamp | null;
  emergency_desired: boolean | null;
  lockdown_reported: boolean | null;
  lockdown_reported_at: Timestamp | null;
  lockdown_desired: boolean | null;
}

export interface FacilityRecordedStatusesTable {
  facility_id: number;
  statuses: Json<Record<string, string>>;
}

export interface FacilityDevicesTable {
  facility_id: number;
  device_id: string;
  name: string | null;
  is_offline: boolean;
  online_changed_at: Timestamp | null;
  is_paired: boolean;
  paired_changed_at: Timestamp | null;
  last_event_type: number;
  last_event_at: Timestamp;
}

export interface FacilityAlarmsTable {
  facility_id: number;
  event_type: number;
  source: string;
  device_id: string | null;
  device_name: string | null;
  unit_id: number | null;
  unit_number: string | null;
  active: boolean;
  changed_at: Timestamp;
}

export interface ActionGroupsTable {
  id: Generated<number>;
  facility_id: number;
  name: string;
  is_manual: Generated<boolean>;
  created_at: CreatedAt;
}

export interface FacilityStatusChangesTable {
  id: Generated<number>;
  facility_id: number;
  account_id: number;
  component: string;
  previous_status: string | null;
  status: string;
  message: string;
  changed_at: CreatedAt;
}

export interface AccessControlTables {
  facility_states: FacilityStatesTable;
  facility_recorded_statuses: FacilityRecordedStatusesTable;
  facility_devices: FacilityDevicesTable;
  facility_alarms: FacilityAlarmsTable;
  action_groups: ActionGroupsTable;
  facility_status_changes: FacilityStatusChangesTable;
  time_groups: TimeGroupsTable;
  access_profiles: AccessProfilesTable;
  units: UnitsTable;
  visitors: VisitorsTable;
  command_sequences: CommandSequencesTable;
  commands: CommandsTable;
  access_code_keys: AccessCodeKeysTable;
  code_reads: CodeReadsTable;
}

// Table types of the facility-status face (0008_facility_status.sql, 0014_maintenance_windows.sql,
// 0015_remote_actions.sql), composed into Tables in src/db/tables.ts.
import type { Generated } from 'kysely';
import type { CreatedAt, Json, Timestamp } from '../db/columns.ts';

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
  /** The transaction that recorded it (migration 0009): its published fact's place (facts.ts). */
  txid: Generated<number>;
}

/** A remote action asked for, who asked, why, and its command (0015_remote_actions.sql; remote-actions.ts). */
export interface RemoteActionsTable {
  id: Generated<string>;
  facility_id: number;
  action: string;
  action_group_id: number | null;
  action_group_name: string | null;
  reason: string | null;
  requested_at: CreatedAt;
  requester_kind: string;
  credential_id: string;
  client_id: string;
  account_id: number | null;
  command_id: string | null;
  wrote_command: boolean;
}

/** An operator's maintenance window of a facility (0014_maintenance_windows.sql). */
export interface MaintenanceWindowsTable {
  id: Generated<number>;
  facility_id: number;
  starts_at: Timestamp;
  ends_at: Timestamp;
  reason: string | null;
  scheduled_by: string;
  created_at: CreatedAt;
  cancelled_at: Timestamp | null;
  cancelled_by: string | null;
}

export interface FacilityStatusTables {
  facility_states: FacilityStatesTable;
  facility_recorded_statuses: FacilityRecordedStatusesTable;
  facility_devices: FacilityDevicesTable;
  facility_alarms: FacilityAlarmsTable;
  action_groups: ActionGroupsTable;
  facility_status_changes: FacilityStatusChangesTable;
  remote_actions: RemoteActionsTable;
  maintenance_windows: MaintenanceWindowsTable;
}

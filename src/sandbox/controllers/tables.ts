// Table types of the sandbox controllers (migration 0018_sandbox_controllers.sql). Until they join the
// service's Tables (src/db/tables.ts, through the sandbox face's tables.ts), the repository reaches them
// with `db.withTables<SandboxControllerTables>()`.
import type { Generated } from 'kysely';
import type { CreatedAt, Json, Timestamp } from '../../db/columns.ts';
import type { ActionPayload, ControllerAction } from './rules.ts';

export interface SandboxControllersTable {
  facility_id: number;
  credential_id: string;
  client_id: string;
  sealed_secret: Buffer;
  online: Generated<boolean>;
  activity_per_hour: number;
  offline_devices: Generated<string[]>;
  leased_by: string | null;
  lease_until: Timestamp | null;
  created_at: CreatedAt;
}

export interface SandboxControllerActionsTable {
  id: Generated<number>;
  facility_id: number;
  kind: ControllerAction['kind'];
  payload: Json<ActionPayload>;
  requested_at: Timestamp;
}

// A type, not an interface: withTables needs its index signature.
export type SandboxControllerTables = {
  sandbox_controllers: SandboxControllersTable;
  sandbox_controller_actions: SandboxControllerActionsTable;
};

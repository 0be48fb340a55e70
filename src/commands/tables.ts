// Table types of the command queue (0005_access_control.sql, 0009_push.sql, 0015_remote_actions.sql), composed into Tables
// in src/db/tables.ts.
import type { Generated } from 'kysely';
import type { CreatedAt, Json, Timestamp } from '../db/columns.ts';
import type { CommandType } from './rules.ts';

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
  /** When the controller acknowledged it as failed, and why (migration 0015); never with acknowledged_at. */
  failed_at: Timestamp | null;
  failure_reason: string | null;
  /** The transaction that acknowledged it or recorded its expiry (migration 0009). */
  settled_txid: number | null;
  expiry_recorded_at: Timestamp | null;
}

export interface CommandsTables {
  command_sequences: CommandSequencesTable;
  commands: CommandsTable;
}

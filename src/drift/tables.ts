// Table types of the drift face (0016_drift.sql), composed into Tables in src/db/tables.ts.
import type { Generated } from 'kysely';
import type { CreatedAt, Json, Timestamp } from '../db/columns.ts';
import type { DriftItem } from './rules.ts';

export interface DriftsTable {
  id: Generated<string>;
  facility_id: number;
  found_at: CreatedAt;
  healed_at: Timestamp | null;
  items: Json<DriftItem[]>;
  corrections: number;
  corrected_at: CreatedAt;
  corrected_through: number;
  found_txid: Generated<number>;
  healed_txid: number | null;
}

export interface DriftTables {
  drifts: DriftsTable;
}

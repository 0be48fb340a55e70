// Table types of the sandbox face (migration 0017_sandboxes.sql), composed into Tables in src/db/tables.ts.
// A sandbox itself is an `accounts` row (tenancy's table: sandbox_of, last_used_at).
import type { CreatedAt } from '../db/columns.ts';

export interface SandboxFacilitiesTable {
  facility_id: number;
  account_id: number;
  size: 'small' | 'medium' | 'large';
  created_at: CreatedAt;
}

export interface SandboxTables {
  sandbox_facilities: SandboxFacilitiesTable;
}

// Table types for Kysely: one interface per table, named as the table is.
import type { ColumnType, Generated } from 'kysely';

export type Timestamp = ColumnType<Date, Date | string, Date | string>;

export interface GatehouseMigrationsTable {
  version: number;
  name: string;
  checksum: string;
  applied_at: Generated<Timestamp>;
}

export interface Tables {
  gatehouse_migrations: GatehouseMigrationsTable;
}

// Table types for Kysely: each face declares its own tables (src/<face>/tables.ts, with the column
// primitives of db/columns.ts); this module composes them into the one database type.
import type { Kysely } from 'kysely';
import type { AccessControlTables } from '../access-control/tables.ts';
import type { AuctionsTables } from '../auctions/tables.ts';
import type { AuthTables } from '../auth/tables.ts';
import type { CommandsTables } from '../commands/tables.ts';
import type { DriftTables } from '../drift/tables.ts';
import type { EventsTables } from '../events/tables.ts';
import type { FacilityStatusTables } from '../facility-status/tables.ts';
import type { PushTables } from '../push/tables.ts';
import type { SandboxTables } from '../sandbox/tables.ts';
import type { SupportTables } from '../support/tables.ts';
import type { TenancyTables } from '../tenancy/tables.ts';
import type { CreatedAt } from './columns.ts';

export interface GatehouseMigrationsTable {
  version: number;
  name: string;
  checksum: string;
  applied_at: CreatedAt;
}

export interface Tables
  extends TenancyTables,
    AuthTables,
    EventsTables,
    AuctionsTables,
    AccessControlTables,
    CommandsTables,
    DriftTables,
    FacilityStatusTables,
    PushTables,
    SandboxTables,
    SupportTables {
  gatehouse_migrations: GatehouseMigrationsTable;
}

/** The database as Kysely sees it: every face's queries are typed against this one type. */
export type Db = Kysely<Tables>;

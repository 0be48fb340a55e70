// Table types of the events face, composed into Tables in src/db/tables.ts (migration 0003).
// The routes read and write these tables with hand-written SQL (src/events/query.ts, ingest.ts);
// the types document them and serve Kysely users.
import type { ColumnType, Generated } from 'kysely';
import type { WrittenOnce } from '../db/columns.ts';

type Timestamp = WrittenOnce<Date>;

/** Append-only, partitioned by month on occurred_at: rows are inserted, never updated. */
export interface GatewayEventsTable {
  seq: Generated<number>;
  id: Generated<string>;
  account_id: number;
  facility_id: number;
  facility_name: string;
  time_zone: string;
  gwc_event_id: string;
  event_type: number;
  occurred_at: Timestamp;
  received_at: Timestamp;
  device_id: string | null;
  device_name: string | null;
  unit_id: number | null;
  unit_number: string | null;
  visitor_id: number | null;
  visitor_name: string | null;
  code_entered: string | null;
  details: string | null;
  data: ColumnType<Record<string, unknown> | null, string | null, never>;
}

/** The controllers' event ids seen per facility (idempotent ingest). */
export interface GatewayEventIdsTable {
  facility_id: number;
  event_id: string;
  occurred_at: Timestamp;
}

export interface GatewayEventCursorKeyTable {
  id: number;
  secret: Buffer;
  created_at: ColumnType<Date, Date | string | undefined, never>;
}

export interface EventsTables {
  gateway_events: GatewayEventsTable;
  gateway_event_ids: GatewayEventIdsTable;
  gateway_event_cursor_key: GatewayEventCursorKeyTable;
}

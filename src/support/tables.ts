// Table types of the support room (migrations 0004_auctions.sql, where the notifications began, and
// 0010_notification_groups.sql), composed into Tables in src/db/tables.ts.
import type { Generated, JSONColumnType } from 'kysely';
import type { CreatedAt, Timestamp } from '../db/columns.ts';

export interface SupportNotificationsTable {
  id: Generated<string>;
  kind: string;
  reason: string | null;
  message: string;
  facility_id: number | null;
  auction_id: string | null;
  detail: JSONColumnType<Record<string, unknown>>;
  created_at: CreatedAt;
  resolved_at: Timestamp | null;
  resolved_by: string | null;
  resolution: string | null;
  delivery_status: string;
  delivery_attempts: Generated<number>;
  delivery_next_at: Timestamp | null;
  delivery_lease_until: Timestamp | null;
  delivery_error: string | null;
  delivered_at: Timestamp | null;
  group_key: string;
  occurrences: Generated<number>;
  last_occurred_at: Timestamp;
  items: JSONColumnType<Record<string, unknown>[]>;
}

/** The auctions a notification group covers (migration 0010_notification_groups.sql). */
export interface SupportNotificationAuctionsTable {
  notification_id: string;
  auction_id: string;
}

export interface SupportTables {
  support_notifications: SupportNotificationsTable;
  support_notification_auctions: SupportNotificationAuctionsTable;
}

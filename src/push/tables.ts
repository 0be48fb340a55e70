// Table types of the push face (migration 0009), composed into Tables in src/db/tables.ts. The
// lanes' SQL is hand-written (repository.ts); the rows it reads are typed from these (one declaration).
import type { Generated } from 'kysely';
import type { CreatedAt, Timestamp } from '../db/columns.ts';
import type { Topic } from './topics.ts';

export interface WebhookSubscriptionsTable {
  id: Generated<number>;
  account_id: number | null;
  application_id: string | null;
  url: string;
  topics: Topic[];
  event_types: number[] | null;
  facility_ids: number[] | null;
  description: string | null;
  status: 'enabled' | 'disabled';
  disabled_reason: 'owner' | 'failing' | null;
  secret_sealed: Buffer;
  previous_secret_sealed: Buffer | null;
  previous_secret_until: Timestamp | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
  failing_since: Timestamp | null;
  last_error: string | null;
  last_success_at: Timestamp | null;
  events_lo: number;
  events_hi: number;
  events_after_ms: number | null;
  events_after_seq: number | null;
  facts_txid: number;
  lease_until: Timestamp | null;
  next_attempt_at: Timestamp | null;
}

export interface WebhookDeliveriesTable {
  id: string;
  subscription_id: number;
  seq: Generated<number>;
  type: string;
  created_at: CreatedAt;
  body: string | null;
  events_lo: number | null;
  events_hi: number | null;
  events_after_ms: number | null;
  events_after_seq: number | null;
  events_count: number | null;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: CreatedAt;
  last_attempt_at: Timestamp | null;
  response_status: number | null;
  last_error: string | null;
  delivered_at: Timestamp | null;
  /** Made by a replay (a newer replay replaces those not yet delivered). */
  replay: Generated<boolean>;
}

export interface PushTables {
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

// Table types of the auctions face (migration 0004_auctions.sql), composed into Tables in src/db/tables.ts.
import type { Generated, JSONColumnType } from 'kysely';
import type { CreatedAt, Timestamp } from '../db/columns.ts';

export interface AuctionsTable {
  id: Generated<string>;
  facility_id: number;
  unit_id: string;
  unit_name: string;
  auction_type: string;
  status: string;
  pending_reasons: Generated<string[]>;
  record: JSONColumnType<Record<string, unknown>>;
  content_hash: string;
  starts_at: Timestamp | null;
  ends_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
  cancelled_at: Timestamp | null;
  closed_at: Timestamp | null;
  sale: JSONColumnType<{ salePrice: number; soldAt: string; buyerName: string | null }> | null;
}

export interface AuctionHistoryTable {
  id: Generated<number>;
  auction_id: string;
  at: CreatedAt;
  from_status: string | null;
  to_status: string;
  trigger: string;
  actor: string;
  reason: string;
  note: string | null;
  /** The transaction that recorded it (migration 0009): its published fact's place (facts.ts). */
  txid: Generated<number>;
}

export interface MediaBlobsTable {
  sha256: string;
  content_type: string;
  extension: string;
  bytes: number;
  width: number | null;
  height: number | null;
  created_at: CreatedAt;
}

export interface AuctionImagesTable {
  auction_id: string;
  position: number;
  source_url: string;
  status: Generated<string>;
  error: string | null;
  attempts: Generated<number>;
  next_attempt_at: CreatedAt;
  lease_until: Timestamp | null;
  sha256: string | null;
  updated_at: CreatedAt;
}

export interface AuctionIdempotencyKeysTable {
  client_id: string;
  key: string;
  request_hash: string;
  status_code: number;
  response: string;
  created_at: CreatedAt;
}

export interface AuctionsTables {
  auctions: AuctionsTable;
  auction_history: AuctionHistoryTable;
  media_blobs: MediaBlobsTable;
  auction_images: AuctionImagesTable;
  auction_idempotency_keys: AuctionIdempotencyKeysTable;
}

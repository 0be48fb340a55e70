-- Auction import: auctions, their history and images, stored media, support notifications and
-- the idempotency keys of create calls. Plain SQL that PostgreSQL 15 and PGlite both run.

create table auctions (
  id uuid primary key default gen_random_uuid(),
  facility_id bigint not null references facilities (id),
  unit_id text not null check (char_length(unit_id) between 1 and 50),
  unit_name text not null check (char_length(unit_name) between 1 and 50),
  auction_type text not null check (auction_type in ('Lien', 'Non-Lien', 'Charity')),
  status text not null check (status in ('Pending', 'Active', 'Cancelled', 'ClosedSold', 'ClosedUnsold')),
  -- Why a Pending auction is held (INCOMPLETE, CHARITY_NOT_ENROLLED); empty otherwise.
  pending_reasons text[] not null default '{}',
  -- The record as the partner sent it (defaults applied) and the hash of its normalised content,
  -- which decides whether a later full list "changed" it.
  record jsonb not null,
  content_hash text not null,
  starts_at timestamptz,
  ends_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  cancelled_at timestamptz,
  closed_at timestamptz,
  -- The sale reported by the marketplace: {salePrice, soldAt, buyerName}.
  sale jsonb
);
-- The invariant of the face: at most one open auction per unit of a facility.
create unique index auctions_one_open_per_unit on auctions (facility_id, unit_id) where status in ('Pending', 'Active');
-- The latest auction of each unit (the full-list plan, cancels).
create index auctions_facility_unit on auctions (facility_id, unit_id, created_at desc);
-- Reads, newest first.
create index auctions_facility_listing on auctions (facility_id, created_at desc, id desc);
-- The closing job.
create index auctions_due on auctions (ends_at) where status = 'Active';

-- Every change of an auction: time, actor, reason.
create table auction_history (
  id bigint generated always as identity primary key,
  auction_id uuid not null references auctions (id),
  at timestamptz not null default now(),
  from_status text,
  to_status text not null,
  trigger text not null,
  actor text not null,
  reason text not null,
  note text
);
create index auction_history_auction on auction_history (auction_id, id);

-- Stored images, one row per distinct content (identical bytes are stored once).
create table media_blobs (
  sha256 text primary key check (sha256 ~ '^[0-9a-f]{64}$'),
  content_type text not null,
  extension text not null,
  bytes integer not null,
  width integer,
  height integer,
  created_at timestamptz not null default now()
);

-- The images of an auction and their retrieval; also the work list of the image fetcher.
create table auction_images (
  auction_id uuid not null references auctions (id),
  position smallint not null,
  source_url text not null,
  status text not null default 'pending' check (status in ('pending', 'stored', 'failed')),
  error text,
  attempts smallint not null default 0,
  next_attempt_at timestamptz not null default now(),
  -- A worker that claimed the image holds it until then (a crashed worker's claim runs out).
  lease_until timestamptz,
  sha256 text references media_blobs (sha256),
  updated_at timestamptz not null default now(),
  primary key (auction_id, position)
);
create index auction_images_due on auction_images (next_attempt_at) where status = 'pending';

-- Support notifications: kept, listed, logged, and delivered to the webhook (an outbox).
create table support_notifications (
  id uuid primary key default gen_random_uuid(),
  kind text not null check (kind in ('AUCTION_PENDING', 'IMAGE_FETCH_FAILED', 'JOB_FAILED')),
  reason text,
  message text not null,
  facility_id bigint references facilities (id),
  auction_id uuid references auctions (id),
  detail jsonb not null default '{}',
  created_at timestamptz not null default now(),
  resolved_at timestamptz,
  resolved_by text,
  resolution text,
  delivery_status text not null check (delivery_status in ('disabled', 'pending', 'delivered', 'failed')),
  delivery_attempts smallint not null default 0,
  delivery_next_at timestamptz,
  delivery_lease_until timestamptz,
  delivery_error text,
  delivered_at timestamptz
);
create index support_notifications_listing on support_notifications (created_at desc, id desc);
create index support_notifications_open on support_notifications (created_at desc, id desc) where resolved_at is null;
create index support_notifications_auction on support_notifications (auction_id) where resolved_at is null;
create index support_notifications_due on support_notifications (delivery_next_at) where delivery_status = 'pending';

-- Idempotency-Key of create calls: the first response, byte for byte, for 24 hours.
create table auction_idempotency_keys (
  client_id text not null,
  key text not null,
  request_hash text not null,
  status_code smallint not null,
  response text not null,
  created_at timestamptz not null default now(),
  primary key (client_id, key)
);
create index auction_idempotency_keys_created on auction_idempotency_keys (created_at);

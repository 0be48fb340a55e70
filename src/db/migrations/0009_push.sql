-- Push (issue 14, SPEC §6.4): webhook subscriptions, their deliveries, and the transaction ids that
-- make the facts already stored by the other faces an outbox.
--
-- Every fact a subscription can be told of is a row some face already writes in the transaction
-- that caused it: an event (gateway_events, with its txid since 0006), a command's acknowledgement
-- or expiry (commands.settled_txid, below), a facility status change (facility_status_changes) and
-- an auction transition (auction_history). Each records the id of the transaction that wrote it,
-- and a subscription's lane reads past its position up to the horizon below which every
-- transaction has ended (src/events/horizon.ts): a crash between commit and delivery loses
-- nothing, and a fact is never read before the transaction that made it committed.

-- The transaction that acknowledged the command, or that recorded its expiry (the job
-- access-control.record-expired-commands).
alter table commands add column settled_txid bigint;
alter table commands add column expiry_recorded_at timestamptz;
create index commands_settled on commands (settled_txid) where settled_txid is not null;
create index commands_expiring on commands (expires_at) where acknowledged_at is null and expiry_recorded_at is null;

alter table facility_status_changes add column txid bigint not null default (pg_current_xact_id()::text::int8);
create index facility_status_changes_txid on facility_status_changes (account_id, txid);

alter table auction_history add column txid bigint not null default (pg_current_xact_id()::text::int8);
create index auction_history_txid on auction_history (txid);

create table webhook_subscriptions (
  id bigint generated always as identity primary key,
  -- The owner: an account (its token's account), or an auction partner's application.
  account_id bigint references accounts (id),
  application_id uuid references applications (id),
  constraint webhook_subscriptions_one_owner check ((account_id is null) <> (application_id is null)),
  url text not null check (char_length(url) between 1 and 2048),
  topics text[] not null check (cardinality(topics) > 0),
  event_types int2[],
  facility_ids bigint[],
  description text check (char_length(description) <= 500),
  status text not null default 'enabled' check (status in ('enabled', 'disabled')),
  -- Why it is disabled: 'owner' (PATCH) or 'failing' (3 days of failed deliveries).
  disabled_reason text,
  -- The signing secret, sealed (AES-256-GCM, bound to the subscription id); the one before a
  -- rotation stays valid until previous_secret_until.
  secret_sealed bytea not null,
  previous_secret_sealed bytea,
  previous_secret_until timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- Health: the first failure of the current run of failures, the last error, the last success.
  failing_since timestamptz,
  last_error text,
  last_success_at timestamptz,
  -- The lane's positions. Events: the walk's phase (lo < txid <= hi) and the last event taken in it
  -- (occurred_at ms, seq), as in src/events/cursor.ts. Other facts: every fact with txid <= facts_txid.
  events_lo bigint not null,
  events_hi bigint not null,
  events_after_ms bigint,
  events_after_seq bigint,
  facts_txid bigint not null,
  -- One instance works a lane at a time: the lease.
  lease_until timestamptz,
  -- The lane's next retry, when one waits (the sweep's index).
  next_attempt_at timestamptz
);
create index webhook_subscriptions_account on webhook_subscriptions (account_id, id);
create index webhook_subscriptions_application on webhook_subscriptions (application_id, id);

create table webhook_deliveries (
  -- The webhook-id: stable across retries, so receivers deduplicate on it.
  id uuid primary key,
  subscription_id bigint not null references webhook_subscriptions (id) on delete cascade,
  -- The lane's order.
  seq bigint generated always as identity,
  type text not null,
  created_at timestamptz not null default now(),
  -- A fact's payload as sent; for gateway.events, the slice of the walk it carries instead (read
  -- again at each attempt: fixed, as a phase's events are), so a backlog costs no copies.
  body text,
  events_lo bigint,
  events_hi bigint,
  events_after_ms bigint,
  events_after_seq bigint,
  events_count int,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempts int not null default 0,
  next_attempt_at timestamptz not null default now(),
  last_attempt_at timestamptz,
  response_status int,
  last_error text,
  delivered_at timestamptz
);
create index webhook_deliveries_lane on webhook_deliveries (subscription_id, seq) where status = 'pending';
create index webhook_deliveries_listing on webhook_deliveries (subscription_id, seq desc);
create index webhook_deliveries_created on webhook_deliveries (created_at);


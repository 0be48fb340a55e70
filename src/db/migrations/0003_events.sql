-- Gateway events: what the facilities' gateway controllers report. Append-only, range-partitioned
-- by month (UTC) on occurred_at; retention drops whole partitions (src/events/partitions.ts).
-- See docs/faces/events.md for the reasoning behind every choice here.

-- The ingest sequence. An ingest transaction takes its account's advisory lock before it draws from
-- it and holds it until it commits, so within an account sequence order is commit order: any
-- snapshot sees a prefix of the account's events, which is what makes cursor walks exact
-- (src/events/ingest.ts, src/events/cursor.ts). Accounts ingest in parallel.
-- (A sequence rather than an identity column: PostgreSQL 15 has no identity on partitioned tables.)
create sequence gateway_events_seq as bigint;

create table gateway_events (
  seq bigint not null default nextval('gateway_events_seq'),
  id uuid not null default gen_random_uuid(),
  account_id bigint not null,
  facility_id bigint not null,
  -- The facility as it was when the event was received (name and time zone attached at ingest).
  facility_name text not null,
  time_zone text not null,
  -- The controller's own id of the event (idempotency key per facility: gateway_event_ids).
  gwc_event_id text not null,
  event_type smallint not null,
  -- When it happened; the time received when the device clock was ahead. Millisecond precision
  -- (typmod 3: whatever writes here is rounded), the precision of the API and of cursor keys.
  occurred_at timestamptz(3) not null,
  received_at timestamptz(3) not null,
  device_id text,
  device_name text,
  unit_id bigint,
  unit_number text,
  visitor_id bigint,
  visitor_name text,
  -- Masked at ingest ("****42"); the code in clear is never stored.
  code_entered text,
  details text,
  data jsonb
) partition by range (occurred_at);

alter sequence gateway_events_seq owned by gateway_events.seq;

-- The account and facility routes, with every filter: equality on the scope, range and order on
-- (occurred_at, seq). (account_id, seq) serves the account's watermark (its highest sequence) and
-- the part of a walk that reads what arrived meanwhile.
create index gateway_events_account on gateway_events (account_id, occurred_at, seq);
create index gateway_events_facility on gateway_events (facility_id, occurred_at, seq);
create index gateway_events_account_seq on gateway_events (account_id, seq);
-- A unit's or a visitor's events (unitIds / visitorIds, the combined route's uq / vq), found
-- without reading the scope's whole time range: equality on the id, range and order on
-- (occurred_at, seq); the scope is checked on the few rows found. Led by the id alone: ids are
-- never reused and a unit belongs to one facility, so the id is as selective as (facility, id), and
-- the same index serves the account route. Partial: events that name no unit (or no visitor) cost
-- nothing here. docs/faces/events.md has the measurements behind this choice.
create index gateway_events_unit on gateway_events (unit_id, occurred_at, seq) where unit_id is not null;
create index gateway_events_visitor on gateway_events (visitor_id, occurred_at, seq) where visitor_id is not null;

-- Events are immutable: no UPDATE, no DELETE (retention drops whole partitions instead).
create function gateway_events_immutable() returns trigger language plpgsql as $$
begin
  raise exception 'gateway events are append-only' using errcode = 'restrict_violation';
end $$;
create trigger gateway_events_append_only before update or delete on gateway_events
  for each row execute function gateway_events_immutable();

-- Idempotent ingest. A unique key on a partitioned table must contain the partition key, and
-- occurred_at of a retried event can differ (an event from a clock that was ahead is stored at the
-- time received), so the controller's ids are kept in this small unpartitioned table, keyed by
-- (facility_id, event_id) alone. Rows leave with the retention window (BRIN on occurred_at).
create table gateway_event_ids (
  facility_id bigint not null,
  -- Byte order ("C"): ids are compared for equality only, and a collation-aware key costs about
  -- half of an ingest batch's time.
  event_id text collate "C" not null,
  occurred_at timestamptz not null,
  primary key (facility_id, event_id)
);
create index gateway_event_ids_occurred on gateway_event_ids using brin (occurred_at);

-- The server key that signs event cursors (HMAC), created on first use; shared by every instance.
create table gateway_event_cursor_key (
  id smallint primary key check (id = 1),
  secret bytea not null check (octet_length(secret) >= 32),
  created_at timestamptz not null default now()
);

-- Creates the month's partition (UTC) if it does not exist; returns its name. Safe to race.
create function gateway_events_ensure_partition(p_month timestamptz) returns text language plpgsql as $$
declare
  month_start date := date_trunc('month', p_month at time zone 'UTC')::date;
  partition_name text := 'gateway_events_p' || to_char(month_start, 'YYYYMM');
begin
  if to_regclass(partition_name) is null then
    execute format(
      'create table if not exists %I partition of gateway_events for values from (%L) to (%L)',
      partition_name,
      to_char(month_start, 'YYYY-MM-DD') || ' 00:00:00+00',
      to_char((month_start + interval '1 month')::date, 'YYYY-MM-DD') || ' 00:00:00+00');
  end if;
  return partition_name;
exception when duplicate_table or invalid_object_definition then
  -- Another session created it at the same moment.
  return partition_name;
end $$;

-- The current window: the default retention (180 days) behind, two months ahead. The maintenance
-- job keeps it so; ingest creates a missing month on demand (a longer EVENT_RETENTION_DAYS).
select gateway_events_ensure_partition(m)
from generate_series(date_trunc('month', now() - interval '190 days'), date_trunc('month', now() + interval '2 months'), interval '1 month') as m;

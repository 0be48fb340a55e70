-- Support notifications are grouped while open (SPEC §3.5): one open row per kind and group (a
-- facility, or what stands for one when there is none), which counts its occurrences and keeps
-- the first 100 of them, so that a bad list cannot flood support. docs/faces/auctions.md has the rules.

alter table support_notifications drop constraint support_notifications_kind_check;
alter table support_notifications add constraint support_notifications_kind_check
  check (kind in ('AUCTION_PENDING', 'IMAGE_FETCH_FAILED', 'JOB_FAILED', 'WEBHOOK_DISABLED'));

alter table support_notifications
  -- Computed by the raiser: `facility:<id>`, `queue:<job name>`, `subscription:<id>`.
  add column group_key text,
  add column occurrences integer not null default 1,
  add column last_occurred_at timestamptz,
  -- The first 100 occurrences: [{occurredAt, reason, auctionId, message, detail, resolution?}].
  add column items jsonb not null default '[]';

-- Rows from before grouping stay groups of one each (their key is their own id), so that several
-- open rows of one facility do not collide in the index below.
update support_notifications
set group_key = 'legacy:' || id::text,
  last_occurred_at = created_at,
  items = jsonb_build_array(jsonb_build_object(
    'occurredAt', to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'reason', reason, 'auctionId', auction_id, 'message', message, 'detail', detail));

alter table support_notifications
  alter column group_key set not null,
  alter column last_occurred_at set not null;

-- One open group per kind and key: two transactions raising the same group at once meet here
-- (insert … on conflict … do update), and never open two.
create unique index support_notifications_open_group on support_notifications (kind, group_key)
  where resolved_at is null;

-- Every auction a group covers (not bounded like `items`): the listing's auctionId filter, and
-- an AUCTION_PENDING group resolves only when none of its auctions is still Pending.
create table support_notification_auctions (
  notification_id uuid not null references support_notifications (id),
  auction_id uuid not null references auctions (id),
  primary key (notification_id, auction_id)
);
create index support_notification_auctions_auction on support_notification_auctions (auction_id);

insert into support_notification_auctions (notification_id, auction_id)
select id, auction_id from support_notifications where auction_id is not null;

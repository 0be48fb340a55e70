-- Drift (issue 28, SPEC §4.1): what a controller held that the PMS did not ask for, or lacked, found
-- by comparing its digest with the PMS's state and healed by corrective commands.
--
-- A facility has at most one open drift: differences found while one is open are added to it. It is
-- healed when the controller's next digest agrees with the PMS. corrected_at and corrected_through are
-- its last round of corrective commands (when, and the last one's sequence): an item already in it is
-- corrected again at once only for a controller that has not seen that round (restored, restarted
-- empty), else once a digest interval has passed — a controller that fails its corrections is not
-- sent them after every digest. `items` names each item that
-- differed and how (missing at the controller, unexpected there, or altered: which fields) — never a
-- gate code. found_txid and healed_txid are the transactions that recorded each (push: the topic
-- facility.drift reads past a lane's position by them, as commands.settled_txid).
create table drifts (
  id uuid primary key default gen_random_uuid(),
  facility_id bigint not null references facilities (id),
  found_at timestamptz not null default now(),
  healed_at timestamptz,
  items jsonb not null,
  corrections int not null,
  corrected_at timestamptz not null default now(),
  corrected_through bigint not null,
  found_txid bigint not null default (pg_current_xact_id()::text::int8),
  healed_txid bigint
);
create unique index drifts_open on drifts (facility_id) where healed_at is null;
create index drifts_facility on drifts (facility_id, found_at desc);
create index drifts_found_txid on drifts (found_txid);
create index drifts_healed_txid on drifts (healed_txid) where healed_txid is not null;

-- Facility status (SPEC §4.1): what each facility's controller last reported (the reported state,
-- kept up by ingest and by the controller's polls), what a PMS or operator asked for (the desired
-- state, carried by commands), the devices and alarms behind them, the facility's action groups,
-- and every change of a status word, kept for push delivery. docs/faces/access-control.md has the
-- rules; src/access-control/status-rules.ts is their code.

-- One row per facility (made with the facility). Every "…_at" of the reported state is an
-- instant this service observed (received_at of an event, the time of a poll) or the event's
-- occurredAt, which ingest has already bounded by the time received (a device clock ahead cannot
-- move it into the future).
create table facility_states (
  facility_id bigint primary key references facilities (id),
  account_id bigint not null references accounts (id),
  -- When the controller last sent events / last asked for commands (null: never).
  last_event_received_at timestamptz,
  last_polled_at timestamptz,
  -- Emergency access (event 31) and lockdown (32) as last reported (null: never reported), the
  -- occurredAt of that report (a late event never overrides a newer one), and as last asked for.
  emergency_reported boolean,
  emergency_reported_at timestamptz,
  emergency_desired boolean,
  lockdown_reported boolean,
  lockdown_reported_at timestamptz,
  lockdown_desired boolean
);
create index facility_states_account on facility_states (account_id);

-- Every device a controller has reported (an event's deviceId), with its last word.
create table facility_devices (
  facility_id bigint not null references facilities (id),
  device_id text not null,
  name text,
  -- Offline/online as the last event 11/12 said (by occurredAt), and when.
  is_offline boolean not null default false,
  online_changed_at timestamptz,
  -- Pairing as the last event 36/38 said: a device unpaired ("removed") stays listed, isPaired false.
  is_paired boolean not null default true,
  paired_changed_at timestamptz,
  last_event_type smallint not null,
  last_event_at timestamptz not null,
  primary key (facility_id, device_id)
);
create index facility_devices_offline on facility_devices (facility_id) where is_offline and is_paired;

-- Door alarm (10), tamper (26), unit door alarm (35): one row per facility, type and source (the
-- device, or for a unit door the unit), active as its last event said (by occurredAt).
create table facility_alarms (
  facility_id bigint not null references facilities (id),
  event_type smallint not null,
  source text not null,
  device_id text,
  device_name text,
  unit_id bigint,
  unit_number text,
  active boolean not null,
  changed_at timestamptz not null,
  primary key (facility_id, event_type, source)
);
create index facility_alarms_active on facility_alarms (facility_id) where active;

-- Action groups: what a remote open / hold / close runs on the controller (a gate, a set of doors).
create table action_groups (
  id bigint generated always as identity primary key,
  facility_id bigint not null references facilities (id),
  name text not null check (char_length(name) between 1 and 100),
  -- Triggered by hand (listed by GET …/actiongroups/manual) rather than by a schedule.
  is_manual boolean not null default true,
  created_at timestamptz not null default now()
);
create index action_groups_facility on action_groups (facility_id);
create unique index action_groups_facility_name on action_groups (facility_id, lower(name));

-- The status words the status-change job last recorded, per facility (apart from facility_states,
-- which ingest updates: the job never waits on a controller's batch, nor a batch on the job).
create table facility_recorded_statuses (
  facility_id bigint primary key references facilities (id),
  statuses jsonb not null
);

-- A status word that changed (a row of the status list changing colour), with its time and reason.
create table facility_status_changes (
  id bigint generated always as identity primary key,
  facility_id bigint not null references facilities (id),
  account_id bigint not null references accounts (id),
  -- gateway · device · alarm · pmsInterface
  component text not null,
  previous_status text,
  status text not null,
  message text not null,
  changed_at timestamptz not null default now()
);
create index facility_status_changes_facility on facility_status_changes (facility_id, id);
create index facility_status_changes_account on facility_status_changes (account_id, id);

create function facility_status_defaults(facility bigint, account bigint) returns void language sql as $$
  insert into facility_states (facility_id, account_id) values (facility, account) on conflict do nothing;
  insert into action_groups (facility_id, name) values (facility, 'Main Gate') on conflict do nothing;
$$;

create function facility_status_new_facility() returns trigger language plpgsql as $$
begin
  perform facility_status_defaults(new.id, new.account_id);
  return new;
end;
$$;

create trigger facilities_status_defaults after insert on facilities
  for each row execute function facility_status_new_facility();

select facility_status_defaults(id, account_id) from facilities;

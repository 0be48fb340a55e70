-- Access control: time groups, access profiles, units, visitors (gate codes), and the commands
-- each facility's gateway controller (GWC) fetches. Gate codes are never stored in clear: a keyed
-- digest finds a code's holder, a sealed copy (AES-256-GCM) is what the controller receives.

-- When a visitor may enter: windows of the facility's local time.
-- windows: [{"days": [0..6] (0 = Sunday), "start": "HH:MM", "end": "HH:MM" ("24:00" = midnight)}]
create table time_groups (
  id bigint generated always as identity primary key,
  facility_id uuid not null references facilities (id),
  name text not null check (char_length(name) between 1 and 100),
  windows jsonb not null,
  is_default boolean not null default false,
  created_at timestamptz not null default now()
);
create index time_groups_facility on time_groups (facility_id);
create unique index time_groups_one_default on time_groups (facility_id) where is_default;

-- Where a visitor may enter: the access areas whose keypads admit them (null: every area).
create table access_profiles (
  id bigint generated always as identity primary key,
  facility_id uuid not null references facilities (id),
  name text not null check (char_length(name) between 1 and 100),
  access_areas text[],
  is_default boolean not null default false,
  created_at timestamptz not null default now()
);
create index access_profiles_facility on access_profiles (facility_id);
create unique index access_profiles_one_default on access_profiles (facility_id) where is_default;

create table units (
  id uuid primary key default gen_random_uuid(),
  facility_id uuid not null references facilities (id),
  unit_number text not null check (char_length(unit_number) between 1 and 50),
  status text not null default 'Vacant' check (status in ('Vacant', 'Rented', 'Delinquent')),
  extended_data jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- A deleted unit stays for the events that name it; its number can be used again.
  deleted_at timestamptz
);
create unique index units_facility_number on units (facility_id, unit_number) where deleted_at is null;

create table visitors (
  id uuid primary key default gen_random_uuid(),
  facility_id uuid not null references facilities (id),
  unit_id uuid not null references units (id),
  first_name text not null check (char_length(first_name) between 1 and 100),
  last_name text not null check (char_length(last_name) <= 100),
  email text check (char_length(email) <= 254),
  mobile_phone_number text check (char_length(mobile_phone_number) <= 32),
  is_tenant boolean not null,
  is_portal_visitor boolean not null default false,
  time_group_id bigint not null references time_groups (id),
  access_profile_id bigint not null references access_profiles (id),
  is_enabled boolean not null default true,
  -- HMAC-SHA256 under the service's code key of "<facility id>:<code>".
  access_code_digest bytea not null,
  -- AES-256-GCM under the service's code key, bound to the visitor id: 0x01 || iv || tag || ciphertext.
  access_code_sealed bytea not null,
  extended_data jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- A removed visitor stays for the events that name it.
  removed_at timestamptz
);
-- A code opens the gate for one visitor only: unique among the facility's enabled visitors.
create unique index visitors_enabled_access_code on visitors (facility_id, access_code_digest) where is_enabled and removed_at is null;
create index visitors_unit on visitors (unit_id) where removed_at is null;
create index visitors_facility on visitors (facility_id) where removed_at is null;

-- The last command sequence of each facility. Taking the next number locks the facility's row
-- until the transaction ends, so a facility's commands commit in sequence order and a controller
-- reading "after N" never skips one that commits late.
create table command_sequences (
  facility_id uuid primary key references facilities (id),
  last_sequence bigint not null
);

-- status is computed: acknowledged (acknowledged_at) · expired (expires_at passed) ·
-- delivered (delivered_at) · pending. Gate codes in payloads are sealed, never in clear.
create table commands (
  id uuid primary key default gen_random_uuid(),
  facility_id uuid not null references facilities (id),
  sequence bigint not null,
  type text not null,
  payload jsonb not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  delivered_at timestamptz,
  acknowledged_at timestamptz,
  unique (facility_id, sequence)
);
create index commands_unacknowledged on commands (facility_id, sequence) where acknowledged_at is null;
create index commands_created on commands (created_at);

-- Which code key the gate codes of this database are sealed with (a fingerprint, not the key):
-- an instance started with another key refuses to start instead of breaking code uniqueness.
create table access_code_keys (
  fingerprint text primary key,
  created_at timestamptz not null default now()
);

-- Every facility starts with its default time group and access profile ("24 Hours", "All
-- Access"), plus one narrower of each so that time and area rules have something to decide.
create function access_control_facility_defaults(facility uuid) returns void language sql as $$
  insert into time_groups (facility_id, name, windows, is_default) values
    (facility, '24 Hours', '[{"days": [0, 1, 2, 3, 4, 5, 6], "start": "00:00", "end": "24:00"}]', true),
    (facility, 'Business Hours', '[{"days": [0, 1, 2, 3, 4, 5, 6], "start": "06:00", "end": "22:00"}]', false);
  insert into access_profiles (facility_id, name, access_areas, is_default) values
    (facility, 'All Access', null, true),
    (facility, 'Gate Only', '{gate}', false);
$$;

create function access_control_new_facility() returns trigger language plpgsql as $$
begin
  perform access_control_facility_defaults(new.id);
  return new;
end;
$$;

create trigger facilities_access_control_defaults after insert on facilities
  for each row execute function access_control_new_facility();

select access_control_facility_defaults(id) from facilities;

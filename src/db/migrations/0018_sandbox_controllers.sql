-- Sandbox controllers (issue 30, part B): each sandbox facility's gateway controller is simulated inside
-- the service, run by whichever instance holds its lease (src/sandbox/controllers/).
--
-- One row per hosted controller: its own gateway credential (made by tenancy like any other; the secret
-- sealed with src/sealed.ts, bound to this row — never stored in clear), the integrator's standing controls
-- (the controller online or not, keypad entries per hour, the devices held offline), and the lease: the
-- instance running it (`leased_by`) until `lease_until` (the database's clock). An instance renews its
-- leases while it runs them and clears them when it stops; one whose lease ran out is taken by the next claim.
create table sandbox_controllers (
  facility_id bigint primary key references facilities (id) on delete cascade,
  credential_id uuid not null references gateway_credentials (id) on delete cascade,
  client_id text not null,
  sealed_secret bytea not null,
  online boolean not null default true,
  activity_per_hour int not null check (activity_per_hour between 0 and 3600),
  offline_devices text[] not null default '{}',
  leased_by text,
  lease_until timestamptz,
  created_at timestamptz not null default now(),
  constraint sandbox_controllers_lease check ((leased_by is null) = (lease_until is null))
);
create unique index sandbox_controllers_credential on sandbox_controllers (credential_id);
-- What an instance holds (its renewals and its release at shutdown).
create index sandbox_controllers_leased_by on sandbox_controllers (leased_by) where leased_by is not null;

-- What the integrator asked the controller to do once, in order: report an event, report a device
-- offline or online, drift, fail the next commands. Taken (deleted) by the instance running the controller
-- while it is online; held here while it is offline or stopped, as a real controller's outbox holds them.
create table sandbox_controller_actions (
  id bigint generated always as identity primary key,
  facility_id bigint not null references sandbox_controllers (facility_id) on delete cascade,
  kind text not null check (kind in ('event', 'fail-next', 'drift')),
  payload jsonb not null,
  requested_at timestamptz not null
);
create index sandbox_controller_actions_facility on sandbox_controller_actions (facility_id, id);

-- Issue 28: maintenance windows (SPEC §4.1). The operator schedules a window for a facility (a
-- firmware update takes the keypads and gateway offline for a few minutes); while one is underway the
-- status list's gateway and device parts say `maintenance` with the window's end, and a silent
-- controller or offline devices raise nothing. docs/faces/access-control.md has the rules;
-- src/facility-status/rules.ts is their code, src/facility-status/maintenance-windows.ts the operations.
create table maintenance_windows (
  id bigint generated always as identity primary key,
  facility_id bigint not null references facilities (id),
  starts_at timestamptz not null,
  ends_at timestamptz not null,
  reason text check (char_length(reason) between 1 and 200),
  -- Who scheduled it: `operator:<clientId>` through the admin routes, `cli:<user>` by the command line.
  scheduled_by text not null,
  created_at timestamptz not null default now(),
  -- A cancelled window never starts; one cancelled while underway ends then. starts_at and ends_at
  -- keep what was scheduled.
  cancelled_at timestamptz,
  cancelled_by text,
  check (ends_at > starts_at)
);
-- The status reads probe a facility's windows not yet ended (few: the current and the future ones).
create index maintenance_windows_facility_end on maintenance_windows (facility_id, ends_at);

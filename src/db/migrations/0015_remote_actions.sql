-- Issue 28: failed commands and remote actions accounted for (SPEC §4, §4.1, §5).

-- A controller acknowledges a command as failed, with a reason (event 3 with data.result "failed"):
-- when, and why. A command is settled once — acknowledged, failed or expired — so failed_at is never
-- set beside acknowledged_at; the status stays computed (src/commands/repository.ts).
alter table commands add column failed_at timestamptz, add column failure_reason text;

-- Every remote action a PMS or operator asked for (emergency, lockdown, an action group's open, hold
-- or close): which, who (the token's credential, client and account; an operator has no account),
-- when, why, and the command it wrote — or, for a repeated switch request that wrote none, the
-- command underway (or the last one; null when there is none). Its result is read from that command.
-- Deleted with its command (30 days after the command's creation), and at the latest 30 days after
-- the request (the job facility-status.purge-remote-actions).
create table remote_actions (
  id uuid primary key default gen_random_uuid(),
  facility_id bigint not null references facilities (id),
  action text not null,
  action_group_id bigint,
  action_group_name text,
  reason text check (char_length(reason) <= 200),
  requested_at timestamptz not null default now(),
  requester_kind text not null,
  credential_id text not null,
  client_id text not null,
  account_id bigint,
  command_id uuid references commands (id) on delete cascade,
  wrote_command boolean not null
);
create index remote_actions_facility on remote_actions (facility_id, requested_at desc, id desc);
create index remote_actions_requested on remote_actions (requested_at);
create index remote_actions_command on remote_actions (command_id);

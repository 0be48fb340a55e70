-- Sandboxes (issue 30): an integrator's account of its own, owned by a production account. Every
-- isolation rule is keyed by account, so a sandbox is isolated by construction; what marks it is
-- `sandbox_of`, the account that owns it (a sandbox goes with its owner), and `last_used_at`, the
-- last time one of its credentials got a token (kept 30 days after that: src/sandbox/).
alter table accounts add column sandbox_of bigint references accounts (id) on delete cascade;
alter table accounts add column last_used_at timestamptz;
alter table accounts add constraint accounts_sandbox_of_another check (sandbox_of <> id);
-- An owner's sandboxes, newest first; the expiry job's walk over the sandboxes last used long ago.
create index accounts_sandbox_of on accounts (sandbox_of, id) where sandbox_of is not null;
create index accounts_sandbox_last_used on accounts (last_used_at) where sandbox_of is not null;

-- The facilities seeded for a sandbox, and the size each was seeded at (small, medium, large). The
-- simulated controllers of part B are per row of this table.
create table sandbox_facilities (
  facility_id bigint primary key references facilities (id),
  account_id bigint not null references accounts (id),
  size text not null check (size in ('small', 'medium', 'large')),
  created_at timestamptz not null default now()
);
create index sandbox_facilities_account on sandbox_facilities (account_id);

-- Events stay append-only, but for a sandbox's: they leave with it (its deletion, src/sandbox/).
-- Retention still drops whole partitions; a production account's event can be neither changed nor deleted.
create or replace function gateway_events_immutable() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' and exists (select 1 from accounts a where a.id = old.account_id and a.sandbox_of is not null) then
    return old;
  end if;
  raise exception 'gateway events are append-only' using errcode = 'restrict_violation';
end $$;

-- Credentials are never deleted, but for a sandbox's (with it): the guard learns of a revocation by reading
-- the revocations made since its last read, and a deleted row is none. Each deleted credential leaves its
-- id here (nothing else: no account, no facility), read like a revocation; purged once no token of it can
-- still be in force (src/sandbox/jobs.ts).
create table deleted_credentials (
  credential_kind text not null check (credential_kind in ('account', 'gateway')),
  credential_id uuid not null,
  deleted_at timestamptz not null default now(),
  primary key (credential_kind, credential_id)
);
create index deleted_credentials_deleted_at on deleted_credentials (deleted_at);

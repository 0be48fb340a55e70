-- Tenancy and credentials. Secrets are stored only as scrypt hashes ("scrypt$N$r$p$salt$hash").

-- Accounts, facilities, units, visitors, time groups, access profiles and action groups have
-- integer ids (identity columns: never reused), as in the systems existing PMS integrations were
-- written for; credentials and the rest keep opaque uuids.
create table accounts (
  id bigint generated always as identity primary key,
  name text not null check (char_length(name) between 1 and 200),
  created_at timestamptz not null default now()
);

create table facilities (
  id bigint generated always as identity primary key,
  account_id bigint not null references accounts (id),
  name text not null check (char_length(name) between 1 and 200),
  -- PMS integrations link a site by its property number: unique within the service.
  property_number text unique check (char_length(property_number) between 1 and 50),
  time_zone text not null,
  address_line text check (char_length(address_line) <= 200),
  city text check (char_length(city) <= 100),
  state text check (char_length(state) <= 100),
  postal_code text check (char_length(postal_code) <= 20),
  country text check (char_length(country) <= 100),
  -- The auction identifier the operator gives the partner that auctions this facility's units.
  guid text unique check (char_length(guid) between 1 and 20),
  charity_enrolled boolean not null default false,
  created_at timestamptz not null default now()
);
create index facilities_account on facilities (account_id);

-- OAuth clients: a PMS vendor, an auction partner (client_type + facility_guids), or an operator.
create table applications (
  id uuid primary key default gen_random_uuid(),
  client_id text not null unique,
  secret_hash text not null,
  name text not null check (char_length(name) between 1 and 200),
  client_type text check (char_length(client_type) between 1 and 100),
  facility_guids text[] not null default '{}',
  is_operator boolean not null default false,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);

-- An account's authorisation of an application: the password grant's username/password.
create table account_credentials (
  id uuid primary key default gen_random_uuid(),
  api_key text not null unique,
  secret_hash text not null,
  account_id bigint not null references accounts (id),
  application_id uuid not null references applications (id),
  scopes text[] not null,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index account_credentials_account on account_credentials (account_id);

-- One facility's gateway controller.
create table gateway_credentials (
  id uuid primary key default gen_random_uuid(),
  client_id text not null unique,
  secret_hash text not null,
  facility_id bigint not null references facilities (id),
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index gateway_credentials_facility on gateway_credentials (facility_id);

-- Refresh tokens rotate: each use marks the token used and issues the next of its family.
-- A used token presented again revokes the whole family (RFC 6819 §5.2.2.3).
create table refresh_tokens (
  id uuid primary key default gen_random_uuid(),
  family_id uuid not null,
  token_hash text not null unique,
  -- Which credential the family was issued for: its revocation ends the family.
  credential_kind text not null check (credential_kind in ('account', 'application', 'gateway')),
  credential_id uuid not null,
  scopes text[] not null,
  expires_at timestamptz not null,
  used_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz not null default now()
);
create index refresh_tokens_family on refresh_tokens (family_id);

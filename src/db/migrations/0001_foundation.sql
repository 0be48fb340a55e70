-- Foundation: helpers every face relies on.
-- gen_random_uuid() is built in from PostgreSQL 13 on (and in PGlite): nothing to install.

-- Keeps an updated_at column true on every UPDATE.
create or replace function gatehouse_touch_updated_at() returns trigger language plpgsql as $$
begin
  new.updated_at := now();
  return new;
end $$;

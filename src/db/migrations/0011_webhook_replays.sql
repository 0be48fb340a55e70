-- Issue 23: a replay's deliveries are marked, so that a new replay of the subscription replaces
-- those of the previous one not yet delivered (one replay in flight per subscription) instead of
-- adding to them.
alter table webhook_deliveries add column replay boolean not null default false;

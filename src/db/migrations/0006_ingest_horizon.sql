-- Issue 12 item 1: an account's controllers ingest in parallel. Ingest no longer takes the
-- account's lock, so the ingest sequence is no longer in commit order; readers bound a cursor's
-- phase by the writing transaction's id instead, up to the horizon below which every transaction of
-- this database has ended (src/events/horizon.ts; the proof in docs/faces/events.md).

-- The id of the transaction that stored the row (its top-level id, 64-bit: it does not wrap).
-- A stable default, so the rows already stored take the id of this migration's transaction
-- (committed with it) without a rewrite of the table; each insert evaluates it per row.
alter table gateway_events add column txid bigint not null default (pg_current_xact_id()::text::int8);

-- A phase of a walk is (account, lo < txid <= hi), and a reader asks whether its account has
-- committed events above the horizon: both are ranges of this index. It replaces (account_id, seq),
-- which served the same two needs while the sequence was in commit order.
create index gateway_events_account_txid on gateway_events (account_id, txid);
drop index gateway_events_account_seq;

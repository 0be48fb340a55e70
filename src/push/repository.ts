// The push face's SQL: subscriptions, the lanes' lease and positions, deliveries.
import { type Selectable, sql, type Updateable } from 'kysely';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import type { Owner, Topic } from './rules.ts';
import type { EventSlice } from '../events/index.ts';
import type { WebhookDeliveriesTable, WebhookSubscriptionsTable } from './tables.ts';

/** A subscription as stored (tables.ts), with its lane's positions and health. */
export type SubscriptionRow = Selectable<WebhookSubscriptionsTable>;

const ids = (values: unknown[] | null) => (values === null ? null : values.map(Number));
function normalize(row: SubscriptionRow): SubscriptionRow {
  return { ...row, facility_ids: ids(row.facility_ids), event_types: ids(row.event_types) };
}

const ownerCondition = (owner: Owner) =>
  owner.kind === 'account'
    ? sql`account_id = ${owner.accountId}::int8`
    : sql`application_id = ${owner.applicationId}::uuid`;

export async function countSubscriptions(db: Db, owner: Owner): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from webhook_subscriptions where ${ownerCondition(owner)}`.execute(db);
  return rows[0]!.n;
}

export interface NewSubscription {
  url: string;
  topics: Topic[];
  eventTypes: number[] | null;
  facilityIds: EntityId[] | null;
  description: string | null;
  /** The lane starts at the horizon: it delivers what commits from now on. */
  horizon: number;
}

/** Inserts a subscription; its secret is sealed by `seal(id)` once the id is known, in the same transaction. */
export async function insertSubscription(
  trx: Db,
  owner: Owner,
  input: NewSubscription,
  seal: (id: EntityId) => Buffer,
): Promise<SubscriptionRow> {
  const { rows } = await sql<{ id: number }>`
    insert into webhook_subscriptions (account_id, application_id, url, topics, event_types, facility_ids, description,
                                       secret_sealed, events_lo, events_hi, facts_txid)
    values (${owner.kind === 'account' ? owner.accountId : null}::int8, ${owner.kind === 'partner' ? owner.applicationId : null}::uuid,
            ${input.url}, ${input.topics}::text[], ${input.eventTypes}::int2[], ${input.facilityIds}::int8[], ${input.description},
            '\\x00'::bytea, ${input.horizon}::int8, ${input.horizon}::int8, ${input.horizon}::int8)
    returning id`.execute(trx);
  const id = rows[0]!.id;
  return (await updateSubscription(trx, id, { secret_sealed: seal(id) }))!;
}

export async function selectSubscription(
  db: Db,
  id: EntityId,
  owner: Owner | null = null,
): Promise<SubscriptionRow | null> {
  const { rows } = await sql<SubscriptionRow>`
    select * from webhook_subscriptions where id = ${id}::int8 and ${owner ? ownerCondition(owner) : sql`true`}`.execute(
    db,
  );
  return rows[0] ? normalize(rows[0]) : null;
}

export async function selectSubscriptions(
  db: Db,
  owner: Owner | null,
  page: { afterId: EntityId | null; limit: number; failingOnly?: boolean },
): Promise<SubscriptionRow[]> {
  const { rows } = await sql<SubscriptionRow>`
    select * from webhook_subscriptions
     where ${owner ? ownerCondition(owner) : sql`true`}
       and (${page.afterId}::int8 is null or id > ${page.afterId}::int8)
       and (${page.failingOnly ?? false} = false or failing_since is not null or disabled_reason = 'failing')
     order by id limit ${page.limit}`.execute(db);
  return rows.map(normalize);
}

/** What an update may change: everything but its identity, its owner and its times of record. */
export type SubscriptionChange = Omit<
  Updateable<WebhookSubscriptionsTable>,
  'id' | 'account_id' | 'application_id' | 'created_at' | 'updated_at' | 'lease_until'
>;

export async function updateSubscription(
  db: Db,
  id: EntityId,
  change: SubscriptionChange,
  owner: Owner | null = null,
): Promise<SubscriptionRow | null> {
  let query = db
    .updateTable('webhook_subscriptions')
    .set({ ...change, updated_at: sql`now()` } as never)
    .where('id', '=', id);
  if (owner?.kind === 'account') query = query.where('account_id', '=', owner.accountId);
  if (owner?.kind === 'partner') query = query.where('application_id', '=', owner.applicationId);
  const row = await query.returningAll().executeTakeFirst();
  return row ? normalize(row as unknown as SubscriptionRow) : null;
}

export async function deleteSubscription(db: Db, id: EntityId, owner: Owner): Promise<boolean> {
  const { numAffectedRows } = await sql`
    delete from webhook_subscriptions where id = ${id}::int8 and ${ownerCondition(owner)}`.execute(db);
  return Number(numAffectedRows ?? 0) > 0;
}

// ---- The lane ----

/** Where a lane stands: its event position and its facts position. */
export type LanePosition = Pick<
  SubscriptionRow,
  'events_lo' | 'events_hi' | 'events_after_ms' | 'events_after_seq' | 'facts_txid'
>;

/** What a fill's one statement did (fillLane). */
export interface LaneFill {
  /** The subscription as it is now (with the new positions when they moved); null when it was deleted. */
  subscription: SubscriptionRow | null;
  /** Whether the positions moved (and the deliveries were made): false when they had moved meanwhile (a replay) or the subscription is no longer enabled. */
  moved: boolean;
  /** The deliveries made, in the lane's order. */
  made: DeliveryRow[];
  /** Whether the lane held pending deliveries besides those made (put there by someone else: a replay, a delivery sent again, a failed head). */
  othersPending: boolean;
}

/**
 * A fill in one statement: the lane's positions move from where `s` saw them to `to` (compare-and-set,
 * while the subscription is enabled), and the deliveries are inserted only if they moved — a replay
 * that moved the positions meanwhile makes the fill change nothing. The statement also answers with
 * the subscription as it is now (what the owner changed meanwhile is seen at the next fill) and
 * whether the lane holds other pending deliveries (the statement's snapshot does not see the rows
 * it inserts), so that the lane reads its head only when something else put deliveries there.
 */
export async function fillLane(
  db: Db,
  s: SubscriptionRow,
  to: LanePosition,
  deliveries: NewDelivery[],
  accepted: readonly Accepted[] = [],
): Promise<LaneFill> {
  const d = (pick: (d: NewDelivery) => unknown) => deliveries.map(pick);
  const { rows } = await sql<
    SubscriptionRow & { lane_moved: boolean; made_ids: string[]; made_seqs: string[]; others_pending: boolean }
  >`
    with recorded as (${acceptedUpdate(accepted)}), moved as (
      update webhook_subscriptions
         set events_lo = ${to.events_lo}::int8, events_hi = ${to.events_hi}::int8, events_after_ms = ${to.events_after_ms}::int8,
             events_after_seq = ${to.events_after_seq}::int8, facts_txid = ${to.facts_txid}::int8
       where id = ${s.id}::int8 and status = 'enabled' and events_lo = ${s.events_lo}::int8 and events_hi = ${s.events_hi}::int8
         and events_after_ms is not distinct from ${s.events_after_ms}::int8
         and events_after_seq is not distinct from ${s.events_after_seq}::int8
         and facts_txid = ${s.facts_txid}::int8
      returning *
    ), made as (
      insert into webhook_deliveries (id, subscription_id, type, created_at, body, events_lo, events_hi, events_after_ms,
                                      events_after_seq, events_count)
      select id, ${s.id}::int8, type, created_at, body, lo, hi, after_ms, after_seq, n
        from unnest(${d((x) => x.id)}::uuid[], ${d((x) => x.type)}::text[], ${d((x) => x.createdAt.toISOString())}::timestamptz[],
                    ${d((x) => x.body)}::text[], ${d((x) => x.slice?.lo ?? null)}::int8[], ${d((x) => x.slice?.hi ?? null)}::int8[],
                    ${d((x) => x.slice?.after?.occurredAt ?? null)}::int8[], ${d((x) => x.slice?.after?.seq ?? null)}::int8[],
                    ${d((x) => x.slice?.count ?? null)}::int4[])
             with ordinality as d(id, type, created_at, body, lo, hi, after_ms, after_seq, n, ord)
       where exists (select 1 from moved)
       order by ord
      returning id, seq
    )
    select s.*, exists (select 1 from moved) as lane_moved,
           array(select id::text from made order by seq) as made_ids, array(select seq from made order by seq) as made_seqs,
           exists (select 1 from webhook_deliveries p where p.subscription_id = ${s.id}::int8 and p.status = 'pending'
                      and p.id <> all(${accepted.map((a) => a.id)}::uuid[])) as others_pending
      from (select * from moved
            union all
            select * from webhook_subscriptions where id = ${s.id}::int8 and not exists (select 1 from moved)) as s`.execute(
    db,
  );
  const row = rows[0];
  if (!row) return { subscription: null, moved: false, made: [], othersPending: false };
  const { lane_moved, made_ids, made_seqs, others_pending, ...subscription } = row;
  const byId = new Map(deliveries.map((x) => [x.id, x]));
  const now = new Date();
  const made = made_ids.map((id, i): DeliveryRow => {
    const x = byId.get(id)!;
    return {
      id,
      subscription_id: s.id,
      seq: Number(made_seqs[i]),
      type: x.type,
      created_at: x.createdAt,
      body: x.body,
      events_lo: x.slice?.lo ?? null,
      events_hi: x.slice?.hi ?? null,
      events_after_ms: x.slice?.after?.occurredAt ?? null,
      events_after_seq: x.slice?.after?.seq ?? null,
      events_count: x.slice?.count ?? null,
      status: 'pending',
      attempts: 0,
      // Due at once (the column's default is the statement's now(), at or before this).
      next_attempt_at: now,
      last_attempt_at: null,
      response_status: null,
      last_error: null,
      delivered_at: null,
      replay: false,
    };
  });
  return { subscription: normalize(subscription), moved: lane_moved, made, othersPending: others_pending };
}

/**
 * Takes the lane for `leaseMs` when no one holds it and the subscription is enabled (null otherwise),
 * with whether it holds pending deliveries (then the turn reads its head before anything else).
 */
export async function claimLane(
  db: Db,
  id: EntityId,
  leaseMs: number,
): Promise<{ subscription: SubscriptionRow; pending: boolean } | null> {
  const { rows } = await sql<SubscriptionRow & { lane_pending: boolean }>`
    update webhook_subscriptions
       set lease_until = now() + make_interval(secs => ${leaseMs / 1000}),
           -- Until the lane ends cleanly, the sweep sees it as due (a crash part-way is picked up again).
           next_attempt_at = coalesce(next_attempt_at, now())
     where id = ${id}::int8 and status = 'enabled' and (lease_until is null or lease_until < now())
    returning *, exists (select 1 from webhook_deliveries d
                          where d.subscription_id = webhook_subscriptions.id and d.status = 'pending') as lane_pending`.execute(
    db,
  );
  if (!rows[0]) return null;
  const { lane_pending, ...subscription } = rows[0];
  return { subscription: normalize(subscription), pending: lane_pending };
}

export async function renewLane(db: Db, id: EntityId, leaseMs: number): Promise<void> {
  await sql`update webhook_subscriptions set lease_until = now() + make_interval(secs => ${leaseMs / 1000})
             where id = ${id}::int8`.execute(db);
}

/** Every lease released (the embedded database's one server, at its start). */
export async function releaseAllLanes(db: Db): Promise<void> {
  await sql`update webhook_subscriptions set lease_until = null where lease_until is not null`.execute(db);
}

/**
 * Gives the lane up; `nextAttemptAt` is when it has work again (a retry), or null when the turn
 * left it with nothing to send. `seen` is where the turn last saw the lane's positions. Answers
 * whether the lane has work all the same — a pending delivery due now, or positions moved since —
 * put there by another instance after the turn last looked (a replay, a delivery sent again: that
 * instance's kick found the lane held): then the lane stays due for the sweep, and the caller works
 * it again.
 */
export async function releaseLane(
  db: Db,
  id: EntityId,
  nextAttemptAt: Date | null,
  seen: LanePosition | null = null,
): Promise<boolean> {
  const { rows } = await sql<{ due: boolean }>`
    with due as (
      select exists (select 1 from webhook_deliveries d where d.subscription_id = ${id}::int8 and d.status = 'pending'
                        and d.next_attempt_at <= now())
             or (${seen !== null} and (s.events_lo, s.events_hi, s.events_after_ms, s.events_after_seq, s.facts_txid)
                   is distinct from (${seen?.events_lo ?? null}::int8, ${seen?.events_hi ?? null}::int8,
                                     ${seen?.events_after_ms ?? null}::int8, ${seen?.events_after_seq ?? null}::int8,
                                     ${seen?.facts_txid ?? null}::int8)) as due
        from webhook_subscriptions s where s.id = ${id}::int8
    )
    update webhook_subscriptions
       set lease_until = null,
           next_attempt_at = coalesce(${nextAttemptAt}::timestamptz, case when (select due from due) then now() end)
     where id = ${id}::int8
    returning (select due from due) as due`.execute(db);
  return rows[0]?.due ?? false;
}

/** A delivery as stored (tables.ts). */
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

export const sliceOf = (d: DeliveryRow): EventSlice | null =>
  d.events_count === null
    ? null
    : {
        lo: d.events_lo!,
        hi: d.events_hi!,
        after: d.events_after_ms === null ? null : { occurredAt: d.events_after_ms, seq: d.events_after_seq! },
        count: d.events_count,
      };

/** The lane's head: its oldest pending delivery. */
export async function headOfLane(db: Db, subscriptionId: EntityId): Promise<DeliveryRow | null> {
  const { rows } = await sql<DeliveryRow>`
    select * from webhook_deliveries where subscription_id = ${subscriptionId}::int8 and status = 'pending'
     order by seq limit 1`.execute(db);
  return rows[0] ?? null;
}

export interface NewDelivery {
  id: string;
  type: string;
  createdAt: Date;
  body: string | null;
  slice: EventSlice | null;
}

export async function insertDeliveries(
  trx: Db,
  subscriptionId: EntityId,
  deliveries: NewDelivery[],
  options: { replay?: boolean } = {},
): Promise<DeliveryRow[]> {
  if (deliveries.length === 0) return [];
  const s = (pick: (d: NewDelivery) => unknown) => deliveries.map(pick);
  const { rows } = await sql<DeliveryRow>`
    insert into webhook_deliveries (id, subscription_id, type, created_at, body, events_lo, events_hi, events_after_ms,
                                    events_after_seq, events_count, replay)
    select id, ${subscriptionId}::int8, type, created_at, body, lo, hi, after_ms, after_seq, n, ${options.replay ?? false}
      from unnest(${s((d) => d.id)}::uuid[], ${s((d) => d.type)}::text[], ${s((d) => d.createdAt.toISOString())}::timestamptz[],
                  ${s((d) => d.body)}::text[], ${s((d) => d.slice?.lo ?? null)}::int8[], ${s((d) => d.slice?.hi ?? null)}::int8[],
                  ${s((d) => d.slice?.after?.occurredAt ?? null)}::int8[], ${s((d) => d.slice?.after?.seq ?? null)}::int8[],
                  ${s((d) => d.slice?.count ?? null)}::int4[])
           with ordinality as d(id, type, created_at, body, lo, hi, after_ms, after_seq, n, ord)
     order by ord
    returning *`.execute(trx);
  // The insert's rows come back in no promised order: the lane's order is seq.
  return rows.sort((a, b) => Number(a.seq) - Number(b.seq));
}

/**
 * A delivery its receiver accepted, not yet written: the lane writes it with its next statement (a
 * fill, or recordAccepted before it reads its head, waits or gives the lane up), so that a lane
 * that is behind makes one statement per delivery, not two.
 */
export interface Accepted {
  id: string;
  responseStatus: number;
  at: Date;
}

const acceptedUpdate = (accepted: readonly Accepted[]) => sql`
  update webhook_deliveries d
     set status = 'delivered', attempts = d.attempts + 1, last_attempt_at = a.at, response_status = a.status,
         last_error = null, delivered_at = a.at
    from unnest(${accepted.map((a) => a.id)}::uuid[], ${accepted.map((a) => a.responseStatus)}::int4[],
                ${accepted.map((a) => a.at.toISOString())}::timestamptz[]) as a(id, status, at)
   where d.id = a.id`;

/** Writes deliveries their receivers accepted (Accepted). */
export async function recordAccepted(db: Db, accepted: readonly Accepted[]): Promise<void> {
  if (accepted.length > 0) await acceptedUpdate(accepted).execute(db);
}

export async function recordAttempt(
  db: Db,
  id: string,
  outcome: {
    status: 'delivered' | 'pending' | 'failed';
    responseStatus: number | null;
    error: string | null;
    nextAt: Date | null;
  },
): Promise<void> {
  await sql`
    update webhook_deliveries set
      status = ${outcome.status}, attempts = attempts + 1, last_attempt_at = now(),
      response_status = ${outcome.responseStatus}, last_error = ${outcome.error},
      next_attempt_at = coalesce(${outcome.nextAt}::timestamptz, next_attempt_at),
      delivered_at = case when ${outcome.status} = 'delivered' then now() else delivered_at end
     where id = ${id}::uuid`.execute(db);
}

/** The subscription's health after an attempt. */
export async function recordHealth(
  db: Db,
  id: EntityId,
  delivered: boolean,
  error: string | null,
): Promise<SubscriptionRow> {
  const { rows } = await sql<SubscriptionRow>`
    update webhook_subscriptions set
      failing_since = case when ${delivered} then null else coalesce(failing_since, now()) end,
      last_error = case when ${delivered} then last_error else ${error} end,
      last_success_at = case when ${delivered} then now() else last_success_at end
     where id = ${id}::int8 returning *`.execute(db);
  return normalize(rows[0]!);
}

export async function selectDeliveries(
  db: Db,
  subscriptionId: EntityId,
  page: { beforeSeq: number | null; limit: number },
): Promise<DeliveryRow[]> {
  const { rows } = await sql<DeliveryRow>`
    select * from webhook_deliveries where subscription_id = ${subscriptionId}::int8
       and (${page.beforeSeq}::int8 is null or seq < ${page.beforeSeq}::int8)
     order by seq desc limit ${page.limit}`.execute(db);
  return rows;
}

/** A delivery sent again now: pending, due at once, its attempts counted on. */
export async function requeueDelivery(db: Db, subscriptionId: EntityId, id: string): Promise<DeliveryRow | null> {
  const { rows } = await sql<DeliveryRow>`
    update webhook_deliveries set status = 'pending', next_attempt_at = now()
     where id = ${id}::uuid and subscription_id = ${subscriptionId}::int8 returning *`.execute(db);
  return rows[0] ?? null;
}

/** Holds the subscription's row until the transaction ends: one replay of it at a time. */
export async function lockSubscription(trx: Db, id: EntityId): Promise<void> {
  await sql`select 1 from webhook_subscriptions where id = ${id}::int8 for update`.execute(trx);
}

/** Deletes the deliveries of the subscription's replays that are not yet delivered; how many. */
export async function deleteUndeliveredReplay(trx: Db, subscriptionId: EntityId): Promise<number> {
  const { numAffectedRows } = await sql`
    delete from webhook_deliveries where subscription_id = ${subscriptionId}::int8 and status = 'pending' and replay`.execute(
    trx,
  );
  return Number(numAffectedRows ?? 0);
}

export async function countPending(db: Db, subscriptionId: EntityId): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from webhook_deliveries where subscription_id = ${subscriptionId}::int8 and status = 'pending'`.execute(
    db,
  );
  return rows[0]!.n;
}

/** A lane the sweep looks at: enabled and not held, with its positions and whether a retry is due. */
export type SweptLane = Pick<
  SubscriptionRow,
  'id' | 'account_id' | 'application_id' | 'topics' | 'events_hi' | 'facts_txid' | 'next_attempt_at'
> & { retry_due: boolean };

/** The lanes the sweep may work: enabled and not held by an instance (sources.ts asks which have facts past their positions). */
export async function sweptLanes(db: Db): Promise<SweptLane[]> {
  const { rows } = await sql<SweptLane>`
    select id, account_id, application_id, topics, events_hi, facts_txid, next_attempt_at,
           coalesce(next_attempt_at <= now(), false) as retry_due
      from webhook_subscriptions
     where status = 'enabled' and (lease_until is null or lease_until < now())`.execute(db);
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    account_id: r.account_id === null ? null : Number(r.account_id),
    events_hi: Number(r.events_hi),
    facts_txid: Number(r.facts_txid),
  }));
}

/**
 * The enabled subscriptions: who owns each (the dispatcher's fair share), whether it is failing (its
 * pool), and whether the event signal of its account kicks it (topics the ingest makes facts of).
 */
export async function enabledLanes(db: Db): Promise<
  {
    id: EntityId;
    account_id: EntityId | null;
    application_id: string | null;
    failing: boolean;
    signalled: boolean;
  }[]
> {
  const { rows } = await sql<{
    id: number;
    account_id: number | null;
    application_id: string | null;
    failing: boolean;
    signalled: boolean;
  }>`
    select id, account_id, application_id, failing_since is not null as failing,
           account_id is not null and topics && array['gateway.events', 'command.status']::text[] as signalled
      from webhook_subscriptions
     where status = 'enabled'`.execute(db);
  return rows.map((r) => ({ ...r, id: Number(r.id), account_id: r.account_id === null ? null : Number(r.account_id) }));
}

export async function purgeDeliveries(db: Db, before: Date): Promise<number> {
  const { numAffectedRows } = await sql`
    delete from webhook_deliveries where created_at < ${before} and status <> 'pending'`.execute(db);
  return Number(numAffectedRows ?? 0);
}

// SQL of the support room: the notifications (`support_notifications`, grouped while open, with the
// auctions each group covers in `support_notification_auctions`), their resolution, and their
// delivery to the webhook (claimed with a lease, SKIP LOCKED). It reads no other room's table: which
// auctions are still Pending is the auctions face's to say (notifications.ts: settleAuctions).
import type { EntityId } from '../ids.ts';
import { sql } from 'kysely';
import type { Db } from '../db/tables.ts';

export interface NotificationRow {
  id: string;
  kind: string;
  group_key: string;
  reason: string | null;
  /** The first occurrence's message (the view says the count). */
  message: string;
  facility_id: EntityId | null;
  auction_id: string | null;
  detail: Record<string, unknown>;
  occurrences: number;
  items: NotificationItem[];
  created_at: Date;
  last_occurred_at: Date;
  resolved_at: Date | null;
  resolved_by: string | null;
  resolution: string | null;
  delivery_status: string;
  delivery_attempts: number;
  delivery_error: string | null;
  delivered_at: Date | null;
}

/** One occurrence of a group, as kept in `items` (JSON). */
export interface NotificationItem {
  occurredAt: string;
  reason: string | null;
  auctionId: string | null;
  message: string;
  detail: Record<string, unknown>;
  /** How the auction of an AUCTION_PENDING item left Pending, while its group stays open. */
  resolution?: string;
}

/** What one raise adds to one group: its occurrences in order, the first of them standing for the group. */
export interface GroupInsert {
  kind: string;
  groupKey: string;
  reason: string | null;
  message: string;
  facilityId: EntityId | null;
  auctionId: string | null;
  detail: Record<string, unknown>;
  occurrences: number;
  /** At most LIMITS.notificationGroupItems. */
  items: NotificationItem[];
}

/**
 * Opens each group, or adds to the open one of its kind and key (one statement; the partial
 * unique index makes concurrent raisers meet on one row). A group that grows after its delivery
 * is due again, but not before `resendAfter` minutes past that delivery; one whose delivery is
 * pending sends its latest state when due; one that failed for good or is not delivered stays so.
 * The caller gives at most one entry per (kind, groupKey): a statement cannot update a row twice.
 */
export async function upsertGroups(
  db: Db,
  now: Date,
  delivery: 'pending' | 'disabled',
  groups: GroupInsert[],
  limits: { items: number; resendAfterMinutes: number },
): Promise<NotificationRow[]> {
  const { rows } = await sql<NotificationRow>`
    insert into support_notifications as n
      (kind, group_key, reason, message, facility_id, auction_id, detail, occurrences, items, created_at,
       last_occurred_at, delivery_status, delivery_next_at)
    select u.kind, u.group_key, u.reason, u.message, u.facility_id, u.auction_id, u.detail::jsonb, u.occurrences,
      u.items::jsonb, ${now}, ${now}, ${delivery}, ${delivery === 'pending' ? now : null}::timestamptz
    from unnest(
      ${groups.map((g) => g.kind)}::text[], ${groups.map((g) => g.groupKey)}::text[],
      ${groups.map((g) => g.reason)}::text[], ${groups.map((g) => g.message)}::text[],
      ${groups.map((g) => g.facilityId)}::int8[], ${groups.map((g) => g.auctionId)}::uuid[],
      ${groups.map((g) => JSON.stringify(g.detail))}::text[], ${groups.map((g) => g.occurrences)}::int4[],
      ${groups.map((g) => JSON.stringify(g.items))}::text[]
    ) as u(kind, group_key, reason, message, facility_id, auction_id, detail, occurrences, items)
    on conflict (kind, group_key) where resolved_at is null do update set
      occurrences = n.occurrences + excluded.occurrences,
      last_occurred_at = excluded.last_occurred_at,
      items = case when jsonb_array_length(n.items) >= ${limits.items} then n.items
        else jsonb_path_query_array(n.items || excluded.items, ${`$[0 to ${limits.items - 1}]`}::jsonpath) end,
      delivery_status = case when n.delivery_status = 'delivered' then 'pending' else n.delivery_status end,
      delivery_attempts = case when n.delivery_status = 'delivered' then 0 else n.delivery_attempts end,
      delivery_next_at = case when n.delivery_status = 'delivered'
        then greatest(excluded.last_occurred_at, n.delivered_at + make_interval(mins => ${limits.resendAfterMinutes}))
        else n.delivery_next_at end
    returning n.*`.execute(db);
  return rows;
}

/** Records which auctions each group covers (already covered: nothing). */
export async function linkAuctions(db: Db, links: { notificationId: string; auctionId: string }[]): Promise<void> {
  if (links.length === 0) return;
  await sql`
    insert into support_notification_auctions (notification_id, auction_id)
    select * from unnest(${links.map((l) => l.notificationId)}::uuid[], ${links.map((l) => l.auctionId)}::uuid[])
    on conflict do nothing`.execute(db);
}

/**
 * The open groups of `kind` that cover any of these auctions, each with every auction it covers
 * (support_notification_auctions), locked for the change their settling makes.
 */
export async function openGroupsCovering(
  db: Db,
  kind: string,
  auctionIds: string[],
): Promise<{ id: string; auction_ids: string[] }[]> {
  const { rows } = await sql<{ id: string; auction_ids: string[] }>`
    select s.id, array(
      select l2.auction_id::text from support_notification_auctions l2 where l2.notification_id = s.id
    ) as auction_ids
    from support_notifications s
    where s.kind = ${kind} and s.resolved_at is null
      and exists (
        select 1 from support_notification_auctions l
        where l.notification_id = s.id and l.auction_id = any(${auctionIds}::uuid[])
      )
    order by s.id
    for update of s`.execute(db);
  return rows;
}

/**
 * These auctions left what held them: in the given groups their items say how (`resolution`), and
 * the groups in `done` (none of their auctions still held) are resolved.
 */
export async function settleGroups(
  db: Db,
  groupIds: string[],
  done: string[],
  auctionIds: string[],
  resolved: { now: Date; actor: string; resolution: string },
): Promise<void> {
  if (groupIds.length === 0) return;
  await sql`
    update support_notifications n set
      items = (
        select coalesce(jsonb_agg(
          case when e ->> 'auctionId' = any(${auctionIds}::text[])
            then e || jsonb_build_object('resolution', ${resolved.resolution}::text) else e end
          order by i), '[]'::jsonb)
        from jsonb_array_elements(n.items) with ordinality as x(e, i)
      ),
      resolved_at = case when n.id = any(${done}::uuid[]) then ${resolved.now}::timestamptz end,
      resolved_by = case when n.id = any(${done}::uuid[]) then ${resolved.actor}::text end,
      resolution = case when n.id = any(${done}::uuid[]) then ${resolved.resolution}::text end
    where n.id = any(${groupIds}::uuid[])`.execute(db);
}

export async function resolveNotificationRow(
  db: Db,
  id: string,
  actor: string,
  resolution: string,
): Promise<NotificationRow | undefined> {
  const row = await db
    .updateTable('support_notifications')
    .set({ resolved_at: new Date(), resolved_by: actor, resolution })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  return row as unknown as NotificationRow | undefined;
}

export interface NotificationFilter {
  state: 'open' | 'resolved' | 'all';
  kind?: string;
  facilityId?: EntityId;
  auctionId?: string;
  after?: { createdAt: Date; id: string };
  limit: number;
}

/** Newest first, keyset-paged on (created_at, id); one row more than the limit, to tell of more. */
export async function listNotificationRows(db: Db, filter: NotificationFilter): Promise<NotificationRow[]> {
  let query = db
    .selectFrom('support_notifications')
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit + 1);
  if (filter.state === 'open') query = query.where('resolved_at', 'is', null);
  if (filter.state === 'resolved') query = query.where('resolved_at', 'is not', null);
  if (filter.kind) query = query.where('kind', '=', filter.kind);
  if (filter.facilityId) query = query.where('facility_id', '=', filter.facilityId);
  if (filter.auctionId) {
    // Every group that covers the auction, not only the one that it opened.
    const { auctionId } = filter;
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('support_notification_auctions as l')
          .select('l.auction_id')
          .whereRef('l.notification_id', '=', 'support_notifications.id')
          .where('l.auction_id', '=', auctionId),
      ),
    );
  }
  if (filter.after) {
    query = query.where(sql<boolean>`(created_at, id) < (${filter.after.createdAt}, ${filter.after.id}::uuid)`);
  }
  return (await query.execute()) as unknown as NotificationRow[];
}

// ---- delivery ----

/** Claims up to 20 notifications whose delivery is due, for 2 minutes, counting the attempt. */
export async function claimDueDeliveries(db: Db, now: Date): Promise<NotificationRow[]> {
  const { rows } = await sql<NotificationRow>`
    with due as (
      select id from support_notifications
      where delivery_status = 'pending' and delivery_next_at <= ${now}
        and (delivery_lease_until is null or delivery_lease_until < ${now})
      order by delivery_next_at limit 20
      for update skip locked
    )
    update support_notifications n
    set delivery_lease_until = ${now}::timestamptz + interval '2 minutes', delivery_attempts = n.delivery_attempts + 1
    from due where n.id = due.id
    returning n.*`.execute(db);
  return rows;
}

/** The outcome of a delivery attempt: delivered, to retry at a time, or failed for good. */
export type DeliveryOutcome =
  | { status: 'delivered' }
  | { status: 'pending'; error: string; nextAt: Date }
  | { status: 'failed'; error: string };

/**
 * Records the outcome of a claimed delivery of the group as it was at `occurrences`, and ends
 * its lease. A group that grew while its delivery was in flight is not marked delivered: it is
 * due again (with fresh attempts) once the resend interval has passed, so the growth is sent.
 */
export async function recordDeliveryOutcome(
  db: Db,
  id: string,
  occurrences: number,
  outcome: DeliveryOutcome,
  resendAfterMinutes: number,
): Promise<void> {
  if (outcome.status === 'delivered') {
    const now = new Date();
    await sql`
      update support_notifications set
        delivered_at = ${now}, delivery_error = null, delivery_lease_until = null,
        delivery_status = case when occurrences = ${occurrences} then 'delivered' else 'pending' end,
        delivery_attempts = case when occurrences = ${occurrences} then delivery_attempts else 0 end,
        delivery_next_at = case when occurrences = ${occurrences} then delivery_next_at
          else ${now}::timestamptz + make_interval(mins => ${resendAfterMinutes}) end
      where id = ${id}`.execute(db);
    return;
  }
  const set =
    outcome.status === 'pending'
      ? { delivery_next_at: outcome.nextAt, delivery_error: outcome.error }
      : { delivery_status: 'failed', delivery_error: outcome.error };
  await db
    .updateTable('support_notifications')
    .set({ ...set, delivery_lease_until: null })
    .where('id', '=', id)
    .execute();
}

/** Whether a delivery is due (the maintenance job's check for a lost wake-up). */
export async function hasDueDelivery(db: Db, now: Date): Promise<boolean> {
  const row = await db
    .selectFrom('support_notifications')
    .select('id')
    .where('delivery_status', '=', 'pending')
    .where('delivery_next_at', '<=', now)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

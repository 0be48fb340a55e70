// SQL of the support notifications (`support_notifications`): the outbox rows, their resolution,
// and their delivery to the webhook (claimed with a lease, SKIP LOCKED).
import type { EntityId } from '../ids.ts';
import { sql } from 'kysely';
import type { Db } from '../db/tables.ts';

export interface NotificationRow {
  id: string;
  kind: string;
  reason: string | null;
  message: string;
  facility_id: EntityId | null;
  auction_id: string | null;
  detail: Record<string, unknown>;
  created_at: Date;
  resolved_at: Date | null;
  resolved_by: string | null;
  resolution: string | null;
  delivery_status: string;
  delivery_attempts: number;
  delivery_error: string | null;
  delivered_at: Date | null;
}

export interface NotificationInsert {
  kind: string;
  reason: string | null;
  message: string;
  facilityId: EntityId | null;
  auctionId: string | null;
  detail: Record<string, unknown>;
}

/** Writes the rows (one statement), to be delivered from `now` unless delivery is 'disabled'. */
export async function insertNotifications(
  db: Db,
  now: Date,
  delivery: 'pending' | 'disabled',
  items: NotificationInsert[],
): Promise<NotificationRow[]> {
  const { rows } = await sql<NotificationRow>`
    insert into support_notifications
      (kind, reason, message, facility_id, auction_id, detail, created_at, delivery_status, delivery_next_at)
    select u.kind, u.reason, u.message, u.facility_id, u.auction_id, u.detail::jsonb, ${now}, ${delivery},
      ${delivery === 'pending' ? now : null}::timestamptz
    from unnest(
      ${items.map((i) => i.kind)}::text[], ${items.map((i) => i.reason)}::text[], ${items.map((i) => i.message)}::text[],
      ${items.map((i) => i.facilityId)}::int8[], ${items.map((i) => i.auctionId)}::uuid[],
      ${items.map((i) => JSON.stringify(i.detail))}::text[]
    ) as u(kind, reason, message, facility_id, auction_id, detail)
    returning *`.execute(db);
  return rows;
}

/** Resolves the open AUCTION_PENDING notifications of these auctions. */
export async function resolvePendingOfAuctions(
  db: Db,
  auctionIds: string[],
  resolved: { now: Date; actor: string; resolution: string },
): Promise<void> {
  await db
    .updateTable('support_notifications')
    .set({ resolved_at: resolved.now, resolved_by: resolved.actor, resolution: resolved.resolution })
    .where('auction_id', 'in', auctionIds)
    .where('kind', '=', 'AUCTION_PENDING')
    .where('resolved_at', 'is', null)
    .execute();
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
  return row as NotificationRow | undefined;
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
  if (filter.auctionId) query = query.where('auction_id', '=', filter.auctionId);
  if (filter.after) {
    query = query.where(sql<boolean>`(created_at, id) < (${filter.after.createdAt}, ${filter.after.id}::uuid)`);
  }
  return (await query.execute()) as NotificationRow[];
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

/** Records the outcome of a claimed delivery and ends its lease. */
export async function recordDeliveryOutcome(db: Db, id: string, outcome: DeliveryOutcome): Promise<void> {
  const set =
    outcome.status === 'delivered'
      ? { delivery_status: 'delivered', delivered_at: new Date(), delivery_error: null }
      : outcome.status === 'pending'
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

// Support notifications (SPEC.md §3.5): every Pending auction, every image that could not be
// fetched after its retries and every background job that exhausted its retries becomes a row
// here (kept and listed), a log line (always) and a POST to SUPPORT_WEBHOOK_URL (when set).
// The table is the outbox: rows are written in the transaction that caused them, and a pg-boss
// job enqueued in that same transaction delivers them after it commits, with retries.
import { sql } from 'kysely';
import type pino from 'pino';
import { request } from 'undici';
import type { JobQueue } from '../jobs/queue.ts';
import { JOBS } from './job-names.ts';
import { LIMITS } from './model.ts';
import { sqlRunner } from './repository.ts';
import type { Db } from '../db/tables.ts';
import { retryDelayMs, WEBHOOK_RETRY_SECONDS } from './retry.ts';

export type NotificationKind = 'AUCTION_PENDING' | 'IMAGE_FETCH_FAILED' | 'JOB_FAILED';

export interface NewNotification {
  kind: NotificationKind;
  reason: string | null;
  message: string;
  facilityId: string | null;
  auctionId: string | null;
  detail: Record<string, unknown>;
}

export type DeliveryStatus = 'disabled' | 'pending' | 'delivered' | 'failed';

/** A stored notification: what was raised, and what became of it. */
export interface NotificationView extends NewNotification {
  id: string;
  createdAt: string;
  resolvedAt: string | null;
  resolvedBy: string | null;
  resolution: string | null;
  delivery: { status: DeliveryStatus; attempts: number; lastError: string | null; deliveredAt: string | null };
}

type Row = {
  id: string;
  kind: string;
  reason: string | null;
  message: string;
  facility_id: string | null;
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
};

export function notificationView(r: Row): NotificationView {
  return {
    id: r.id,
    kind: r.kind as NotificationKind,
    reason: r.reason,
    message: r.message,
    facilityId: r.facility_id,
    auctionId: r.auction_id,
    detail: r.detail,
    createdAt: r.created_at.toISOString(),
    resolvedAt: r.resolved_at?.toISOString() ?? null,
    resolvedBy: r.resolved_by,
    resolution: r.resolution,
    delivery: { status: r.delivery_status as DeliveryStatus, attempts: r.delivery_attempts, lastError: r.delivery_error, deliveredAt: r.delivered_at?.toISOString() ?? null },
  };
}

export interface NotifierDeps {
  db: Db;
  logger: pino.Logger;
  jobs: JobQueue;
  webhookUrl: string | null;
  /** Per delivery attempt. */
  webhookTimeoutMs?: number;
}

export class SupportNotifier {
  constructor(private readonly deps: NotifierDeps) {}

  /**
   * Writes notifications in the caller's transaction and enqueues their delivery in it. Call
   * `logCreated` with the result once the transaction has committed.
   */
  async create(trx: Db, now: Date, items: NewNotification[]): Promise<NotificationView[]> {
    if (items.length === 0) return [];
    const delivery = this.deps.webhookUrl ? 'pending' : 'disabled';
    const { rows } = await sql<Row>`
      insert into support_notifications (kind, reason, message, facility_id, auction_id, detail, created_at, delivery_status, delivery_next_at)
      select u.kind, u.reason, u.message, u.facility_id, u.auction_id, u.detail::jsonb, ${now}, ${delivery}, ${delivery === 'pending' ? now : null}::timestamptz
      from unnest(
        ${items.map((i) => i.kind)}::text[], ${items.map((i) => i.reason)}::text[], ${items.map((i) => i.message)}::text[],
        ${items.map((i) => i.facilityId)}::uuid[], ${items.map((i) => i.auctionId)}::uuid[], ${items.map((i) => JSON.stringify(i.detail))}::text[]
      ) as u(kind, reason, message, facility_id, auction_id, detail)
      returning *`.execute(trx);
    if (delivery === 'pending') await this.deps.jobs.send(JOBS.deliverNotifications, {}, {}, sqlRunner(trx));
    return rows.map(notificationView);
  }

  /** The log is a channel of its own: one warning per notification. */
  logCreated(created: NotificationView[]): void {
    for (const n of created) {
      this.deps.logger.warn({ notification: { id: n.id, kind: n.kind, reason: n.reason, facilityId: n.facilityId, auctionId: n.auctionId } }, `support notification: ${n.message}`);
    }
  }

  /** Marks the open notifications of these auctions resolved (the auction left Pending). */
  async resolveForAuctions(trx: Db, auctionIds: string[], now: Date, actor: string, resolution: string): Promise<void> {
    if (auctionIds.length === 0) return;
    await trx
      .updateTable('support_notifications')
      .set({ resolved_at: now, resolved_by: actor, resolution })
      .where('auction_id', 'in', auctionIds)
      .where('kind', '=', 'AUCTION_PENDING')
      .where('resolved_at', 'is', null)
      .execute();
  }

  async resolve(id: string, actor: string, resolution: string): Promise<NotificationView | null> {
    const row = await this.deps.db
      .updateTable('support_notifications')
      .set({ resolved_at: new Date(), resolved_by: actor, resolution })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return row ? notificationView(row as Row) : null;
  }

  async get(id: string): Promise<NotificationView | null> {
    const row = await this.deps.db.selectFrom('support_notifications').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? notificationView(row as Row) : null;
  }

  async list(filter: { state: 'open' | 'resolved' | 'all'; kind?: NotificationKind; facilityId?: string; auctionId?: string; after?: { createdAt: Date; id: string }; limit: number }) {
    let query = this.deps.db.selectFrom('support_notifications').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit + 1);
    if (filter.state === 'open') query = query.where('resolved_at', 'is', null);
    if (filter.state === 'resolved') query = query.where('resolved_at', 'is not', null);
    if (filter.kind) query = query.where('kind', '=', filter.kind);
    if (filter.facilityId) query = query.where('facility_id', '=', filter.facilityId);
    if (filter.auctionId) query = query.where('auction_id', '=', filter.auctionId);
    if (filter.after) query = query.where(sql<boolean>`(created_at, id) < (${filter.after.createdAt}, ${filter.after.id}::uuid)`);
    const rows = (await query.execute()) as Row[];
    return rows.map(notificationView);
  }

  /**
   * Delivers the notifications whose delivery is due, oldest first; a failed POST is retried
   * with back-off up to LIMITS.webhookAttempts times, then marked failed (and logged as an error).
   */
  async deliverDue(now: Date = new Date()): Promise<{ delivered: number; retried: number; failed: number }> {
    const counts = { delivered: 0, retried: 0, failed: 0 };
    const url = this.deps.webhookUrl;
    if (!url) return counts;
    let nextRetry: Date | null = null;
    for (;;) {
      const { rows } = await sql<Row>`
        with due as (
          select id from support_notifications
          where delivery_status = 'pending' and delivery_next_at <= ${now} and (delivery_lease_until is null or delivery_lease_until < ${now})
          order by delivery_next_at limit 20
          for update skip locked
        )
        update support_notifications n set delivery_lease_until = ${now}::timestamptz + interval '2 minutes', delivery_attempts = n.delivery_attempts + 1
        from due where n.id = due.id
        returning n.*`.execute(this.deps.db);
      if (rows.length === 0) break;
      await Promise.all(
        rows.map(async (row) => {
          const error = await this.post(url, row);
          if (error === null) {
            counts.delivered++;
            await this.deps.db
              .updateTable('support_notifications')
              .set({ delivery_status: 'delivered', delivered_at: new Date(), delivery_error: null, delivery_lease_until: null })
              .where('id', '=', row.id)
              .execute();
          } else if (row.delivery_attempts >= LIMITS.webhookAttempts) {
            counts.failed++;
            await this.deps.db.updateTable('support_notifications').set({ delivery_status: 'failed', delivery_error: error, delivery_lease_until: null }).where('id', '=', row.id).execute();
            this.deps.logger.error({ notification: { id: row.id, kind: row.kind }, attempts: row.delivery_attempts, error }, 'support webhook delivery failed for good');
          } else {
            counts.retried++;
            const at = new Date(now.getTime() + retryDelayMs(WEBHOOK_RETRY_SECONDS, row.delivery_attempts));
            if (nextRetry === null || at < nextRetry) nextRetry = at;
            await this.deps.db
              .updateTable('support_notifications')
              .set({ delivery_next_at: at, delivery_error: error, delivery_lease_until: null })
              .where('id', '=', row.id)
              .execute();
            this.deps.logger.warn({ notification: { id: row.id }, attempt: row.delivery_attempts, error }, 'support webhook delivery failed; will retry');
          }
        }),
      );
    }
    if (nextRetry) await this.deps.jobs.send(JOBS.deliverNotifications, {}, { startAfter: nextRetry });
    return counts;
  }

  /** One POST; null on a 2xx, else what went wrong. */
  private async post(url: string, row: Row): Promise<string | null> {
    const payload = {
      id: row.id,
      type: 'support.notification',
      kind: row.kind,
      reason: row.reason,
      message: row.message,
      facilityId: row.facility_id,
      auctionId: row.auction_id,
      detail: row.detail,
      createdAt: row.created_at.toISOString(),
      attempt: row.delivery_attempts,
    };
    try {
      const response = await request(url, {
        method: 'POST',
        body: JSON.stringify(payload),
        headers: { 'content-type': 'application/json', 'user-agent': 'Gatehouse-Support/1.0', 'x-gatehouse-notification-id': row.id },
        signal: AbortSignal.timeout(this.deps.webhookTimeoutMs ?? 10_000),
      });
      await response.body.dump().catch(() => {});
      return response.statusCode >= 200 && response.statusCode < 300 ? null : `HTTP ${response.statusCode}`;
    } catch (error) {
      const e = error as { code?: string; name?: string };
      return e.name === 'TimeoutError' || e.name === 'AbortError' ? 'TIMEOUT' : (e.code ?? e.name ?? 'ERROR');
    }
  }
}

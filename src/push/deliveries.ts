// The delivery log of a subscription (SPEC §6.4): listed newest first, one sent again by hand, and
// a replay — everything of its topics since a time within retention sent again.
import type { Principal } from '../http/caller.ts';
import type { Db } from '../db/tables.ts';
import { type AppError, conflict, notFound, validationFailed } from '../errors.ts';
import type { EntityId } from '../ids.ts';
import { isOpaqueId } from '../ids.ts';
import { randomUUID } from 'node:crypto';
import * as repo from './repository.ts';
import { webhookEnvelope } from '../net/webhook-sender.ts';
import { type PushFacts, readFacts } from './sources.ts';
import { currentHorizon, ownerOf, type PushTenancy } from './subscriptions.ts';

export interface DeliveryDeps {
  db: Db;
  tenancy: PushTenancy;
  /** The owners' fact readers (a replay reads the facts again). */
  facts: PushFacts;
  retentionDays: number;
  /** Pending deliveries one subscription may hold (WEBHOOK_PENDING_PER_SUBSCRIPTION): a replay beyond it is refused. */
  pendingPerSubscription: number;
  kick(id: EntityId): void;
}

export interface DeliveryView {
  id: string;
  type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  createdAt: string;
  lastAttemptAt: string | null;
  responseStatus: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  /** gateway.events deliveries: how many events it carries. */
  eventCount?: number;
}

export function deliveryView(d: repo.DeliveryRow): DeliveryView {
  return {
    id: d.id,
    type: d.type,
    status: d.status,
    attempts: d.attempts,
    createdAt: d.created_at.toISOString(),
    lastAttemptAt: d.last_attempt_at?.toISOString() ?? null,
    responseStatus: d.response_status,
    lastError: d.last_error,
    nextAttemptAt: d.status === 'pending' ? d.next_attempt_at.toISOString() : null,
    deliveredAt: d.delivered_at?.toISOString() ?? null,
    ...(d.events_count !== null && { eventCount: d.events_count }),
  };
}

async function own(deps: DeliveryDeps, principal: Principal | null, id: EntityId): Promise<repo.SubscriptionRow> {
  const owner = principal ? await ownerOf(deps.tenancy, principal) : null;
  const row = await repo.selectSubscription(deps.db, id, owner);
  if (!row) throw notFound('The webhook subscription');
  return row;
}

/** Newest first; `before` is the `nextBefore` of the previous page. */
export async function listDeliveries(
  deps: DeliveryDeps,
  principal: Principal | null,
  id: EntityId,
  page: { before: number | null; limit: number },
): Promise<{ deliveries: DeliveryView[]; nextBefore: number | null }> {
  await own(deps, principal, id);
  const rows = await repo.selectDeliveries(deps.db, id, { beforeSeq: page.before, limit: page.limit + 1 });
  const more = rows.length > page.limit;
  const shown = rows.slice(0, page.limit);
  return { deliveries: shown.map(deliveryView), nextBefore: more ? shown[shown.length - 1]!.seq : null };
}

/** Sends a delivery again now (its webhook-id unchanged, so a receiver that already has it sees a repeat). */
export async function retryDelivery(
  deps: DeliveryDeps,
  principal: Principal | null,
  id: EntityId,
  deliveryId: string,
): Promise<DeliveryView> {
  await own(deps, principal, id);
  const row = isOpaqueId(deliveryId) ? await repo.requeueDelivery(deps.db, id, deliveryId) : null;
  if (!row) throw notFound('The delivery');
  deps.kick(id);
  return deliveryView(row);
}

/**
 * Everything of the subscription's topics since `since` sent again: its events from that time on
 * (the lane's event position moves back; what follows comes after them, as before), and its other
 * facts since then as new deliveries. At-least-once: the receiver sees repeats, with new webhook-ids
 * for the facts and the events' own ids to deduplicate on.
 *
 * Bounded (issue 23): one replay per subscription at a time — a new one replaces the deliveries of
 * the previous one not yet delivered (they are deleted; the answer counts them), so repeating a
 * replay does not multiply them; and a replay that would take the subscription past
 * `pendingPerSubscription` pending deliveries is refused whole (409 REPLAY_TOO_LARGE), changing nothing.
 */
export async function replay(
  deps: DeliveryDeps,
  principal: Principal | null,
  id: EntityId,
  since: Date,
  now = new Date(),
): Promise<{ since: string; facts: number; events: boolean; replaced: number }> {
  const s = await own(deps, principal, id);
  const oldest = now.getTime() - deps.retentionDays * 86_400_000;
  if (since.getTime() < oldest || since.getTime() > now.getTime())
    throw validationFailed([
      {
        path: 'since',
        message: `must be within the retention window: between ${new Date(oldest).toISOString()} and now`,
      },
    ]);
  const cap = deps.pendingPerSubscription;
  const horizon = await currentHorizon(deps.db);
  // One more than the cap: enough to know that a replay is too large.
  const facts = await readFacts(deps.facts, s, 0, s.facts_txid, cap + 1, since);
  facts.sort((a, b) => a.txid - b.txid);
  const events = s.topics.includes('gateway.events');
  const replaced = await deps.db.transaction().execute(async (trx) => {
    await repo.lockSubscription(trx, id);
    const replaced = await repo.deleteUndeliveredReplay(trx, id);
    const pending = await repo.countPending(trx, id);
    if (pending + facts.length > cap)
      throw replayTooLarge(facts.length > cap ? `more than ${cap}` : String(facts.length), pending, cap);
    await repo.insertDeliveries(
      trx,
      id,
      facts.map((fact) => {
        const deliveryId = randomUUID();
        return {
          id: deliveryId,
          type: fact.type,
          createdAt: fact.at,
          body: webhookEnvelope(deliveryId, fact.type, fact.at, fact.data),
          slice: null,
        };
      }),
      { replay: true },
    );
    // The walk again from `since`: the phase of every transaction up to now, after (since, 0).
    if (events)
      await repo.updateSubscription(trx, id, {
        events_lo: 0,
        events_hi: Math.max(horizon, s.events_hi),
        events_after_ms: since.getTime(),
        events_after_seq: 0,
      });
    return replaced;
  });
  deps.kick(id);
  return { since: since.toISOString(), facts: facts.length, events, replaced };
}

function replayTooLarge(facts: string, pending: number, cap: number): AppError {
  return conflict(
    'REPLAY_TOO_LARGE',
    `This replay would queue ${facts} deliveries and the subscription has ${pending} other deliveries pending; ` +
      `a subscription holds at most ${cap} pending deliveries. Replay from a later time, or once its pending deliveries are delivered.`,
  );
}

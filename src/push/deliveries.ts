// The delivery log of a subscription (SPEC §6.4): listed newest first, one sent again by hand, and
// a replay — everything of its topics since a time within retention sent again.
import type { Principal } from '../http/caller.ts';
import type { Db } from '../db/tables.ts';
import { notFound, validationFailed } from '../errors.ts';
import type { EntityId } from '../ids.ts';
import { isOpaqueId } from '../ids.ts';
import { randomUUID } from 'node:crypto';
import * as repo from './repository.ts';
import { envelope } from './rules.ts';
import { readFacts } from './sources.ts';
import { currentHorizon, ownerOf } from './subscriptions.ts';

export interface DeliveryDeps {
  db: Db;
  retentionDays: number;
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
  const owner = principal ? await ownerOf(deps.db, principal) : null;
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
 */
export async function replay(
  deps: DeliveryDeps,
  principal: Principal | null,
  id: EntityId,
  since: Date,
  now = new Date(),
): Promise<{ since: string; facts: number; events: boolean }> {
  const s = await own(deps, principal, id);
  const oldest = now.getTime() - deps.retentionDays * 86_400_000;
  if (since.getTime() < oldest || since.getTime() > now.getTime())
    throw validationFailed([
      {
        path: 'since',
        message: `must be within the retention window: between ${new Date(oldest).toISOString()} and now`,
      },
    ]);
  const horizon = await currentHorizon(deps.db);
  const facts = await readFacts(deps.db, s, 0, s.facts_txid, 10_000, since);
  facts.sort((a, b) => a.txid - b.txid);
  const events = s.topics.includes('gateway.events');
  await deps.db.transaction().execute(async (trx) => {
    await repo.insertDeliveries(
      trx,
      id,
      facts.map((fact) => {
        const deliveryId = randomUUID();
        return {
          id: deliveryId,
          type: fact.type,
          createdAt: fact.at,
          body: envelope(deliveryId, fact.type, fact.at, fact.data),
          slice: null,
        };
      }),
    );
    // The walk again from `since`: the phase of every transaction up to now, after (since, 0).
    if (events)
      await repo.updateSubscription(trx, id, {
        events_lo: 0,
        events_hi: Math.max(horizon, s.events_hi),
        events_after_ms: since.getTime(),
        events_after_seq: 0,
      });
  });
  deps.kick(id);
  return { since: since.toISOString(), facts: facts.length, events };
}

// One subscription's lane: its deliveries in order, one at a time, from one instance at a time (the
// lease). A turn: take the lane; send its head (the oldest pending delivery) when due; when it has
// none, fill it — the next slice of events and the next facts past its position, turned into
// deliveries and the position moved on, in one transaction; repeat until nothing is due or the turn
// has lasted long enough; give the lane up, saying when it has work again (a retry).
//
// Head-of-line: a delivery that fails holds the ones behind it until it succeeds (the lane is
// ordered), and the facts behind it wait where they are — in the tables that hold them, not as
// copies — so a receiver down for days costs no storage. After `disableAfterMs` of failures
// without a success the subscription is disabled, its head marked failed, and support notified.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import type { Logger } from '../logger.ts';
import { readHorizon } from '../events/horizon.ts';
import { HORIZON_SQL } from '../events/query.ts';
import { FetchError, type SafeFetcher } from '../net/safe-fetch.ts';
import { signatureHeaders } from '../net/webhook-signature.ts';
import * as repo from './repository.ts';
import { envelope, givesUp, isDelivered, retryDelayMs } from './rules.ts';
import { eventsOfSlice, nextEventSlice, nextFacts } from './sources.ts';

export interface LaneDeps {
  db: Db;
  pool: pg.Pool;
  fetcher: SafeFetcher;
  logger: Logger;
  cursorKey: Buffer;
  /** Events older than this (epoch ms, from now) are past retention. */
  cutoff: () => number;
  secretsOf: (s: repo.SubscriptionRow, now: Date) => string[];
  retryBaseMs: number;
  /** A receiver's time to answer. */
  timeoutMs: number;
  disableAfterMs: number;
  /** Raises the support notification of a subscription disabled for failing (in the transaction). */
  onDisabled: (trx: Db, s: repo.SubscriptionRow, now: Date) => Promise<void>;
  /** Told of every attempt (metrics). */
  onAttempt?: (outcome: 'delivered' | 'failed', ms: number) => void;
}

export type TurnResult = { outcome: 'busy' } | { outcome: 'done'; retryAt: Date | null; delivered: number };

/**
 * The lease outlasts one step of a turn (a fill, then one attempt of at most the receiver's time
 * limit) and is renewed before each: an instance that dies holds its lanes this long at most.
 */
const leaseMs = (deps: LaneDeps) => deps.timeoutMs + 5_000;
/** A turn gives the lane up after this long, so that a busy lane cannot hold a worker for ever. */
const TURN_MS = 10_000;

export async function workLane(deps: LaneDeps, id: EntityId): Promise<TurnResult> {
  const claimed = await repo.claimLane(deps.db, id, leaseMs(deps));
  if (!claimed) return { outcome: 'busy' };
  let subscription = claimed;
  let delivered = 0;
  let retryAt: Date | null = null;
  const started = performance.now();
  try {
    for (let step = 0; performance.now() - started < TURN_MS; step++) {
      if (step > 0) await repo.renewLane(deps.db, id, leaseMs(deps));
      let head = await repo.headOfLane(deps.db, id);
      if (!head) {
        if (!(await fill(deps, subscription))) break;
        subscription = (await repo.selectSubscription(deps.db, id)) ?? subscription;
        head = await repo.headOfLane(deps.db, id);
        if (!head) continue; // the position moved on, nothing to send: look again
      }
      if (head.next_attempt_at.getTime() > Date.now()) {
        retryAt = head.next_attempt_at;
        break;
      }
      const result = await attempt(deps, subscription, head);
      if (result.delivered) delivered++;
      else {
        subscription = result.subscription;
        if (subscription.status === 'disabled') break;
        retryAt = result.retryAt;
        break;
      }
      // Positions live in the row: read them again before the next fill.
      subscription = (await repo.selectSubscription(deps.db, id)) ?? subscription;
    }
    const more = performance.now() - started >= TURN_MS;
    return { outcome: 'done', retryAt: more ? new Date() : retryAt, delivered };
  } finally {
    const turnOver = performance.now() - started >= TURN_MS;
    await repo
      .releaseLane(deps.db, id, turnOver ? new Date() : retryAt)
      .catch((error) =>
        deps.logger.warn(
          { err: error, subscriptionId: id },
          'webhook lane could not be released; its lease will lapse',
        ),
      );
  }
}

/** Turns what is new past the lane's position into deliveries; false when there was nothing. */
async function fill(deps: LaneDeps, s: repo.SubscriptionRow): Promise<boolean> {
  const horizon =
    s.account_id !== null
      ? (await readHorizon(deps.pool, s.account_id)).hi
      : Number((await deps.pool.query<{ hi: string }>(HORIZON_SQL)).rows[0]!.hi);
  const events = s.topics.includes('gateway.events')
    ? await nextEventSlice(deps.pool, s, horizon, deps.cutoff())
    : null;
  const facts = await nextFacts(deps.db, s, horizon);
  const now = new Date();
  const deliveries: repo.NewDelivery[] = [];
  if (events?.slice)
    deliveries.push({ id: randomUUID(), type: 'gateway.events', createdAt: now, body: null, slice: events.slice });
  for (const fact of facts.facts) {
    const id = randomUUID();
    deliveries.push({
      id,
      type: fact.type,
      createdAt: fact.at,
      body: envelope(id, fact.type, fact.at, fact.data),
      slice: null,
    });
  }
  const unchanged =
    facts.txid === s.facts_txid &&
    (events === null ||
      (events.position.lo === s.events_lo &&
        events.position.hi === s.events_hi &&
        (events.position.after?.seq ?? null) === s.events_after_seq));
  if (unchanged && deliveries.length === 0) return false;
  const position = events
    ? {
        events_lo: events.position.lo,
        events_hi: events.position.hi,
        events_after_ms: events.position.after?.occurredAt ?? null,
        events_after_seq: events.position.after?.seq ?? null,
      }
    : {
        events_lo: s.events_lo,
        events_hi: s.events_hi,
        events_after_ms: s.events_after_ms,
        events_after_seq: s.events_after_seq,
      };
  const moved = await deps.db.transaction().execute(async (trx) => {
    // The deliveries exist only if the position moves from where this fill read it (a replay may have moved it).
    if (!(await repo.moveLane(trx, s, { ...position, facts_txid: facts.txid }))) return false;
    await repo.insertDeliveries(trx, s.id, deliveries);
    return true;
  });
  if (!moved) return true; // read the lane again and fill from where it now is
  return deliveries.length > 0;
}

/** The body of a delivery as sent: a fact's as stored; an events delivery's read again from its slice. */
async function bodyOf(deps: LaneDeps, s: repo.SubscriptionRow, d: repo.DeliveryRow): Promise<string> {
  if (d.body !== null) return d.body;
  const slice = repo.sliceOf(d)!;
  const events = await eventsOfSlice(deps.pool, s, slice, deps.cutoff(), deps.cursorKey);
  return envelope(d.id, d.type, d.created_at, { events });
}

type AttemptResult =
  | { delivered: true }
  | { delivered: false; subscription: repo.SubscriptionRow; retryAt: Date | null };

async function attempt(deps: LaneDeps, s: repo.SubscriptionRow, d: repo.DeliveryRow): Promise<AttemptResult> {
  const now = new Date();
  const body = await bodyOf(deps, s, d);
  const headers = {
    'content-type': 'application/json',
    ...signatureHeaders(deps.secretsOf(s, now), d.id, now, body),
  };
  const started = performance.now();
  let status: number | null = null;
  let error: string | null = null;
  try {
    status = (await deps.fetcher.post(s.url, body, headers)).status;
    if (!isDelivered(status)) error = `HTTP ${status}`;
  } catch (caught) {
    error = caught instanceof FetchError ? `${caught.code}: ${caught.message}` : 'ERROR';
  }
  const ms = performance.now() - started;
  if (error === null) {
    deps.onAttempt?.('delivered', ms);
    await repo.recordAttempt(deps.db, d.id, { status: 'delivered', responseStatus: status, error: null, nextAt: null });
    if (s.failing_since !== null || s.last_success_at === null) await repo.recordHealth(deps.db, s.id, true, null);
    return { delivered: true };
  }
  deps.onAttempt?.('failed', ms);
  const failingSince = s.failing_since?.getTime() ?? now.getTime();
  if (givesUp(failingSince, now.getTime(), deps.disableAfterMs)) {
    const disabled = await deps.db.transaction().execute(async (trx) => {
      await repo.recordAttempt(trx, d.id, { status: 'failed', responseStatus: status, error, nextAt: null });
      await repo.recordHealth(trx, s.id, false, error);
      const row = (await repo.updateSubscription(trx, s.id, { status: 'disabled', disabled_reason: 'failing' }))!;
      await deps.onDisabled(trx, row, now);
      return row;
    });
    deps.logger.error(
      { subscriptionId: s.id, url: s.url, failingSince: new Date(failingSince).toISOString(), error },
      'webhook subscription disabled: its deliveries failed for too long',
    );
    return { delivered: false, subscription: disabled, retryAt: null };
  }
  const retryAt = new Date(now.getTime() + retryDelayMs(d.attempts + 1, deps.retryBaseMs));
  await repo.recordAttempt(deps.db, d.id, { status: 'pending', responseStatus: status, error, nextAt: retryAt });
  const subscription = await repo.recordHealth(deps.db, s.id, false, error);
  return { delivered: false, subscription, retryAt };
}

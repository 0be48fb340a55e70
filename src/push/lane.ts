// One subscription's lane: its deliveries in order, one at a time, from one instance at a time (the
// lease). A turn: take the lane; send its head (the oldest pending delivery) when due; when it has
// none, fill it — the next slice of events and the next facts past its position, turned into
// deliveries and the position moved on, in one statement; when caught up, wait inside the turn for
// the account's next kick at the next gathering tick (dispatcher.ts, LaneSignal); repeat until
// nothing is due or the turn has lasted long enough; give the lane up, saying when it has work
// again (a retry).
//
// The lease holder is the only one that makes deliveries in its lane from the facts, so what a fill
// made is sent from memory; the lane's head is read only when something else put deliveries there
// (a replay, a delivery sent again), which the claim, the fill and the release each tell of. A
// delivery its receiver accepted is written by the lane's next statement — the next fill, or before
// the turn reads the head, waits for a kick or gives the lane up — so that a lane that is behind
// makes one statement per delivery; until then the delivery log shows it pending (a turn or less).
//
// Head-of-line: a delivery that fails holds the ones behind it until it succeeds (the lane is
// ordered), and the facts behind it wait where they are — in the tables that hold them, not as
// copies — so a receiver down for days costs no storage. After `disableAfterMs` of failures
// without a success the subscription is disabled, its head marked failed, and support notified.
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import type { Logger } from '../logger.ts';
import { retryDelayMs, type RetrySchedule } from '../net/retry.ts';
import { webhookEnvelope, webhookEnvelopeOf, type WebhookSender } from '../net/webhook-sender.ts';
import type { LaneSignal } from './dispatcher.ts';
import * as repo from './repository.ts';
import { attemptError, givesUp, LIMITS } from './rules.ts';
import { eventPosition, eventSelection, type LaneReads, nextFacts, type PushFacts } from './sources.ts';

export interface LaneDeps {
  db: Db;
  /** The facts the lane delivers, read through their owners (sources.ts). */
  facts: PushFacts;
  /** The horizon reads the lanes of this process share (sources.ts). */
  reads: LaneReads;
  /** The one webhook sender (net/webhook-sender.ts), with the push face's deadlines and address check. */
  sender: WebhookSender;
  logger: Logger;
  secretsOf: (s: repo.SubscriptionRow, now: Date) => string[];
  retrySchedule: RetrySchedule;
  /** A receiver's time to answer. */
  timeoutMs: number;
  disableAfterMs: number;
  /** Raises the support notification of a subscription disabled for failing (in the transaction). */
  onDisabled: (trx: Db, s: repo.SubscriptionRow, now: Date) => Promise<void>;
  /** Told of every attempt (metrics). */
  onAttempt?: (outcome: 'delivered' | 'failed', ms: number) => void;
  /** A delivery accepted at `at` (ms), made at `createdAt` (ms). */
  onDelivered?: (createdAt: number, at: number) => void;
}

export type TurnResult =
  | { outcome: 'busy' }
  /** `failing`: its last attempt failed (the dispatcher works it in the failing lanes' pool). */
  | { outcome: 'done'; retryAt: Date | null; delivered: number; failing: boolean };

/**
 * The lease outlasts one step of a turn (a fill, then one attempt of at most the receiver's time
 * limit) and is renewed before each: an instance that dies holds its lanes this long at most.
 */
const leaseMs = (deps: LaneDeps) => deps.timeoutMs + 5_000;
/** A turn gives the lane up after this long, so that a busy lane cannot hold a worker for ever. */
const TURN_MS = 10_000;

export async function workLane(deps: LaneDeps, id: EntityId, signal: LaneSignal | null = null): Promise<TurnResult> {
  const claimed = await repo.claimLane(deps.db, id, leaseMs(deps));
  if (!claimed) return { outcome: 'busy' };
  let subscription = claimed.subscription;
  // Where the turn last saw the lane's positions (its claim, its fills): told at the release, which
  // finds whether another instance moved them since (a replay whose kick found the lane held).
  let seen: repo.LanePosition = claimed.subscription;
  // Whether the lane's head must be read: it held deliveries when the turn took it, or something
  // other than this turn's fills put some there (a replay, a delivery sent again). Otherwise the
  // lease holder is the only one that makes deliveries in the lane, and it knows them: what the last
  // fill made, in order, with the bodies it rendered from the rows it had just read — sent from
  // memory, without reading the lane's head or the events again.
  let readHead = claimed.pending;
  let made: repo.DeliveryRow[] = [];
  const bodies = new Map<string, string>();
  // Where the last fill left the lane: caught up with the horizon (then the next fill waits for a
  // kick), and whether it took every event of its phase.
  let fillState: FillState = { caughtUp: false, phaseDone: false };
  // Deliveries their receivers accepted, written by the lane's next statement: its next fill, or
  // recordAccepted before the turn reads the head, waits for a kick or gives the lane up.
  let accepted: repo.Accepted[] = [];
  const recordAccepted = async () => {
    const written = accepted;
    accepted = [];
    await repo.recordAccepted(deps.db, written);
  };
  let delivered = 0;
  let retryAt: Date | null = null;
  const started = performance.now();
  let renewed = started;
  let due = false;
  try {
    while (performance.now() - started < TURN_MS) {
      if (performance.now() - renewed > leaseMs(deps) / 3) {
        await repo.renewLane(deps.db, id, leaseMs(deps));
        renewed = performance.now();
      }
      let head = made.shift() ?? null;
      if (!head && readHead) {
        await recordAccepted();
        head = await repo.headOfLane(deps.db, id);
        readHead = head !== null;
      }
      if (!head) {
        if (fillState.caughtUp) {
          // Nothing new until the account commits more: wait for its next kick, at the next
          // gathering tick, with the other lanes in step (a tick or two at most).
          await recordAccepted();
          if (!signal || (await signal.next(2)) === 'leave') break;
        }
        const filled = await fill(deps, subscription, fillState.phaseDone, accepted);
        accepted = [];
        if (filled === 'gone') break;
        fillState = filled.state;
        if (!('subscription' in filled)) continue;
        subscription = filled.subscription;
        seen = filled.subscription;
        if (filled.moved) for (const d of filled.made) bodies.set(d.id, filled.bodies.get(d.id)!);
        // A replay moved the lane meanwhile, or something put deliveries in it (they come first, by seq): read its head.
        if (!filled.moved || filled.othersPending) readHead = true;
        else made = filled.made;
        if (subscription.status !== 'enabled') break;
        continue;
      }
      if (head.next_attempt_at.getTime() > Date.now()) {
        retryAt = head.next_attempt_at;
        break;
      }
      const body = bodies.get(head.id) ?? (await bodyOf(deps, subscription, head));
      bodies.delete(head.id);
      const result = await attempt(deps, subscription, head, body);
      subscription = result.subscription;
      if (result.delivered) {
        accepted.push(result.accepted);
        delivered++;
        continue;
      }
      if (subscription.status === 'enabled') retryAt = result.retryAt;
      break;
    }
  } finally {
    // Not written (the database failed): the deliveries stay pending and are sent again (at least once).
    await recordAccepted().catch((error) =>
      deps.logger.warn(
        { err: error, subscriptionId: id },
        'webhook deliveries sent could not be recorded; they are sent again',
      ),
    );
    const turnOver = performance.now() - started >= TURN_MS;
    due = await repo.releaseLane(deps.db, id, turnOver ? new Date() : retryAt, seen).catch((error) => {
      deps.logger.warn({ err: error, subscriptionId: id }, 'webhook lane could not be released; its lease will lapse');
      return false;
    });
  }
  const more = performance.now() - started >= TURN_MS || (due && retryAt === null && subscription.status === 'enabled');
  return {
    outcome: 'done',
    retryAt: more ? new Date() : retryAt,
    delivered,
    failing: subscription.failing_since !== null,
  };
}

/** Where a fill left the lane. */
interface FillState {
  /** Nothing past the position up to the horizon it read. */
  caughtUp: boolean;
  /** Every event of the position's phase taken (the next fill starts at the next phase). */
  phaseDone: boolean;
}

type Filled =
  /** The subscription was deleted, or is not enabled any more. */
  | 'gone'
  /** Nothing new up to the horizon: no statement made. */
  | { state: FillState }
  | (repo.LaneFill & { subscription: repo.SubscriptionRow; state: FillState; bodies: Map<string, string> });

/**
 * Turns what is new past the lane's position into deliveries, and moves the position, in one
 * statement (repository.ts fillLane). The horizon and whether the lane's owners have facts past its
 * position come from one read shared by the lanes filling at the same moment (sources.ts); the
 * events' slice is shared too when lanes of the same selection are in step.
 */
async function fill(
  deps: LaneDeps,
  s: repo.SubscriptionRow,
  phaseTaken: boolean,
  accepted: readonly repo.Accepted[],
): Promise<Filled> {
  // The horizon as it is now, without waiting for it to pass the account's latest commits (a
  // reader of a page waits up to 500 ms for those; a lane need not: what it does not take now, the
  // next kick — every commit of the account sends one — takes).
  const horizon = await deps.reads.horizon(s);
  const limit = LIMITS.eventsPerDelivery;
  const events = s.topics.includes('gateway.events')
    ? await deps.facts.events.nextSlice(eventSelection(s), eventPosition(s), horizon.hi, limit, phaseTaken)
    : null;
  const facts = await nextFacts(deps.facts, s, horizon);
  const now = new Date();
  const deliveries: repo.NewDelivery[] = [];
  const bodies = new Map<string, string>();
  if (events?.slice) {
    const id = randomUUID();
    deliveries.push({ id, type: 'gateway.events', createdAt: now, body: null, slice: events.slice });
    bodies.set(id, webhookEnvelopeOf(id, 'gateway.events', now, deps.reads.eventsData(events.events)));
  }
  for (const fact of facts.facts) {
    const id = randomUUID();
    deliveries.push({
      id,
      type: fact.type,
      createdAt: fact.at,
      body: webhookEnvelope(id, fact.type, fact.at, fact.data),
      slice: null,
    });
  }
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
  const to = { ...position, facts_txid: facts.txid };
  // A full slice may have more behind it; a short one took the rest of its phase, and the walk is
  // caught up when that phase ends at the horizon.
  const phaseDone = events !== null && (events.slice === null ? events.caughtUp : events.slice.count < limit);
  const eventsCaughtUp = events === null || (phaseDone && horizon.hi <= events.position.hi);
  const state: FillState = { caughtUp: eventsCaughtUp && facts.txid >= horizon.hi, phaseDone };
  const unchanged =
    to.facts_txid === s.facts_txid &&
    to.events_lo === s.events_lo &&
    to.events_hi === s.events_hi &&
    to.events_after_ms === s.events_after_ms &&
    to.events_after_seq === s.events_after_seq;
  if (unchanged && deliveries.length === 0 && accepted.length === 0) return { state };
  const filled = await repo.fillLane(deps.db, s, to, deliveries, accepted);
  if (filled.subscription === null) return 'gone';
  // Positions moved meanwhile (a replay): nothing was made, and the next fill starts from the lane's row.
  if (!filled.moved)
    return { ...filled, subscription: filled.subscription, state: { caughtUp: false, phaseDone: false }, bodies };
  return { ...filled, subscription: filled.subscription, state, bodies };
}

/** The body of a delivery as sent: a fact's as stored; an events delivery's read again from its slice. */
async function bodyOf(deps: LaneDeps, s: repo.SubscriptionRow, d: repo.DeliveryRow): Promise<string> {
  if (d.body !== null) return d.body;
  const events = await deps.facts.events.eventsOf(eventSelection(s), repo.sliceOf(d)!);
  return webhookEnvelope(d.id, d.type, d.created_at, { events });
}

type AttemptResult =
  /** Accepted: written by the lane's next statement. */
  | { delivered: true; subscription: repo.SubscriptionRow; accepted: repo.Accepted }
  | { delivered: false; subscription: repo.SubscriptionRow; retryAt: Date | null };

async function attempt(
  deps: LaneDeps,
  s: repo.SubscriptionRow,
  d: repo.DeliveryRow,
  body: string,
): Promise<AttemptResult> {
  const now = new Date();
  const started = performance.now();
  const sent = await deps.sender.send(s.url, { id: d.id, body, secrets: deps.secretsOf(s, now) }, now);
  const ms = performance.now() - started;
  if (sent.delivered) {
    deps.onAttempt?.('delivered', ms);
    deps.onDelivered?.(d.created_at.getTime(), Date.now());
    // The health changes on the first success after failures (or ever); a healthy lane writes nothing more.
    const healthy =
      s.failing_since !== null || s.last_success_at === null ? await repo.recordHealth(deps.db, s.id, true, null) : s;
    return {
      delivered: true,
      subscription: { ...s, failing_since: null, last_success_at: healthy.last_success_at },
      accepted: { id: d.id, responseStatus: sent.status, at: new Date() },
    };
  }
  deps.onAttempt?.('failed', ms);
  const status = sent.status;
  const error = attemptError(sent)!;
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
  const retryAt = new Date(now.getTime() + retryDelayMs(deps.retrySchedule, d.attempts + 1));
  await repo.recordAttempt(deps.db, d.id, { status: 'pending', responseStatus: status, error, nextAt: retryAt });
  const subscription = await repo.recordHealth(deps.db, s.id, false, error);
  return { delivered: false, subscription, retryAt };
}

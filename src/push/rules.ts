// The push face's rules, as pure functions: who may subscribe to what, what a subscription's body
// must hold, when a failed delivery is tried again, when a failing subscription is given up, and
// how a failed attempt is worded, and the support notification of a subscription given up (SPEC §6.4).
// The envelope and what counts as delivered are the one webhook sender's (net/webhook-sender.ts).
import type { FieldError } from '../errors.ts';
import type { EntityId } from '../ids.ts';
import type { RetrySchedule } from '../net/retry.ts';
import type { WebhookAttempt } from '../net/webhook-sender.ts';
import type { NewNotification } from '../support/index.ts';

import { TOPICS, type Topic } from './topics.ts';

export { TOPICS, type Topic };

/** An account subscribes to its account's topics; an auction partner to its facilities' auctions. */
export const TOPICS_OF = {
  account: ['gateway.events', 'command.status', 'facility.status', 'facility.drift'],
  partner: ['auction.status'],
} as const satisfies Record<string, readonly Topic[]>;
export type OwnerKind = keyof typeof TOPICS_OF;

export const LIMITS = {
  /** Subscriptions one account or partner may hold (Stripe allows 16 endpoints; we allow more, not unbounded). */
  subscriptionsPerOwner: 100,
  /** Events per gateway.events delivery. */
  eventsPerDelivery: 100,
  /** Facts (command, facility, auction changes) a lane takes at a time. */
  factsPerFill: 500,
  /** Entries of the eventTypes and facilityIds filters. */
  filterEntries: 1000,
  urlLength: 2048,
  descriptionLength: 500,
  /** A rotated secret stays valid this long. */
  previousSecretHours: 24,
  /** Deliveries are kept (listed, retried, replayed) this long. */
  deliveryRetentionDays: 30,
} as const;

export type Owner = { kind: 'account'; accountId: EntityId } | { kind: 'partner'; applicationId: string };

export interface SubscriptionInput {
  url?: unknown;
  topics?: unknown;
  eventTypes?: unknown;
  facilityIds?: unknown;
  description?: unknown;
  status?: unknown;
}

/** The topics an owner may not take, from a requested list (a partner asking for gateway.events: 403). */
export function forbiddenTopics(kind: OwnerKind, topics: readonly string[]): string[] {
  const allowed: readonly string[] = TOPICS_OF[kind];
  return topics.filter((t) => (TOPICS as readonly string[]).includes(t) && !allowed.includes(t));
}

/** Field errors of the parts of a subscription body that need more than the schema says. */
export function subscriptionFaults(input: SubscriptionInput, knownEventTypes: ReadonlySet<number>): FieldError[] {
  const faults: FieldError[] = [];
  if (Array.isArray(input.topics)) {
    input.topics.forEach((topic, i) => {
      if (!(TOPICS as readonly unknown[]).includes(topic))
        faults.push({ path: `topics[${i}]`, message: `must be one of ${TOPICS.join(', ')}` });
    });
    if (new Set(input.topics).size !== input.topics.length)
      faults.push({ path: 'topics', message: 'must not name a topic twice' });
  }
  if (Array.isArray(input.eventTypes)) {
    input.eventTypes.forEach((type, i) => {
      if (!knownEventTypes.has(type as number))
        faults.push({ path: `eventTypes[${i}]`, message: 'is not an event type (GET /gatewayevents/types)' });
    });
  }
  return faults;
}

/** eventTypes filters events: without the topic gateway.events it would silently do nothing. (facilityIds filters every topic.) */
export function filterFaults(topics: readonly string[], eventTypes: unknown): FieldError[] {
  return eventTypes != null && !topics.includes('gateway.events')
    ? [{ path: 'eventTypes', message: 'applies to the topic gateway.events only' }]
    : [];
}

/**
 * The wait before attempt `attempt + 1` after `attempt` failed ones (net/retry.ts): 5 s doubling
 * (5 s, 10 s, 20 s, … ) up to 4 h, with equal jitter, so that receivers that fail together are not
 * retried together. `baseMs` is configurable for tests (WEBHOOK_RETRY_BASE_MS).
 */
export const retrySchedule = (baseMs: number): RetrySchedule => ({ baseMs, capMs: 4 * 3600_000, jitter: 'equal' });

/** A subscription whose deliveries have failed without a success for this long is disabled. */
export function givesUp(failingSince: number, now: number, disableAfterMs: number): boolean {
  return now - failingSince >= disableAfterMs;
}

/** A failed attempt in the delivery log's words: `HTTP <status>`, or the fetcher's code and sentence. */
export function attemptError(attempt: WebhookAttempt): string | null {
  if (attempt.delivered) return null;
  return attempt.failure === null ? `HTTP ${attempt.status}` : `${attempt.failure.code}: ${attempt.failure.message}`;
}

/** The support notification of a subscription disabled for failing (raised through the support room). */
export function disabledNotification(subscription: {
  id: EntityId;
  url: string;
  account_id: EntityId | null;
  application_id: string | null;
  failing_since: Date | null;
  last_error: string | null;
}): NewNotification {
  const owner =
    subscription.account_id !== null
      ? { accountId: subscription.account_id }
      : { applicationId: subscription.application_id };
  return {
    kind: 'WEBHOOK_DISABLED',
    reason: 'FAILING',
    message: `The webhook subscription ${subscription.id} (${subscription.url}) was disabled: its deliveries failed since ${subscription.failing_since?.toISOString()}. Last error: ${subscription.last_error}.`,
    facilityId: null,
    auctionId: null,
    detail: { subscriptionId: subscription.id, url: subscription.url, owner },
  };
}

/** Whether the subscription's filters let this fact's facility through. */
export function facilityMatches(facilityIds: readonly EntityId[] | null, facilityId: EntityId): boolean {
  return facilityIds === null || facilityIds.includes(facilityId);
}

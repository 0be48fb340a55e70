// Webhook subscriptions (SPEC §6.4): made, read, changed, removed and tested by their owner — an
// account (its token's account) or an auction partner's application — and listed with their
// health by the operator. The signing secret is shown once, at creation and at rotation; it is
// kept sealed (src/sealed.ts), never logged.
import { randomUUID } from 'node:crypto';
import type { AccountPrincipal, PartnerPrincipal, Principal } from '../http/caller.ts';
import { commitHorizon } from '../db/horizon.ts';
import type { Db } from '../db/tables.ts';
import { AppError, type FieldError, conflict, forbidden, notFound, validationFailed } from '../errors.ts';
import { eventTypeInfo } from '../events/index.ts';
import type { EntityId } from '../ids.ts';
import { checkUrl, hostAllowed, defaultPort } from '../net/address.ts';
import { FetchError, resolveVetted, systemLookup } from '../net/safe-fetch.ts';
import { webhookEnvelope, type WebhookSender } from '../net/webhook-sender.ts';
import { newWebhookSecret } from '../net/webhook-signature.ts';
import type { Sealer } from '../sealed.ts';
import type { Tenancy } from '../tenancy/index.ts';
import * as repo from './repository.ts';
import {
  attemptError,
  filterFaults,
  forbiddenTopics,
  LIMITS,
  type Owner,
  type SubscriptionInput,
  subscriptionFaults,
  type Topic,
} from './rules.ts';

/** What push asks tenancy, through its face: a partner's application, and the facilities an owner may name. */
export type PushTenancy = Pick<Tenancy, 'applicationIdOf' | 'facilitiesAmong'>;

export interface SubscriptionDeps {
  db: Db;
  tenancy: PushTenancy;
  sealer: Sealer;
  /** The one webhook sender, as the lanes use it (a test ping goes out like any delivery). */
  sender: WebhookSender;
  allowHosts: readonly string[];
  /** The lane has work (a change, a test): work it now. */
  kick(id: EntityId): void;
}

export interface SubscriptionView {
  id: EntityId;
  url: string;
  topics: Topic[];
  eventTypes: number[] | null;
  facilityIds: EntityId[] | null;
  description: string | null;
  status: 'enabled' | 'disabled';
  createdAt: string;
  updatedAt: string;
  health: {
    disabledReason: string | null;
    failingSince: string | null;
    lastError: string | null;
    lastSuccessAt: string | null;
    nextAttemptAt: string | null;
  };
}

export interface AdminSubscriptionView extends SubscriptionView {
  owner: { accountId: EntityId } | { applicationId: string };
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

export function subscriptionView(r: repo.SubscriptionRow): SubscriptionView {
  return {
    id: r.id,
    url: r.url,
    topics: r.topics,
    eventTypes: r.event_types,
    facilityIds: r.facility_ids,
    description: r.description,
    status: r.status,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
    health: {
      disabledReason: r.disabled_reason,
      failingSince: iso(r.failing_since),
      lastError: r.last_error,
      lastSuccessAt: iso(r.last_success_at),
      nextAttemptAt: r.status === 'enabled' ? iso(r.next_attempt_at) : null,
    },
  };
}

export const adminSubscriptionView = (r: repo.SubscriptionRow): AdminSubscriptionView => ({
  ...subscriptionView(r),
  owner: r.account_id !== null ? { accountId: r.account_id } : { applicationId: r.application_id! },
});

const binding = (id: EntityId) => `webhook-subscription:${id}`;

/** Every transaction at or below it has ended: a new lane starts there (it delivers what commits from now on). */
export async function currentHorizon(db: Db): Promise<number> {
  return commitHorizon(db);
}

/** The secrets a delivery is signed with: the current one, and the previous one while its overlap lasts. */
export function secretsOf(sealer: Sealer, s: repo.SubscriptionRow, now: Date): string[] {
  const secrets = [sealer.unseal(binding(s.id), s.secret_sealed)];
  if (s.previous_secret_sealed && s.previous_secret_until && s.previous_secret_until > now)
    secrets.push(sealer.unseal(binding(s.id), s.previous_secret_sealed));
  return secrets;
}

/** Who owns the caller's subscriptions; a token that is neither an account's nor a partner's may not have any. */
export async function ownerOf(tenancy: PushTenancy, principal: Principal): Promise<Owner> {
  if (principal.kind === 'account') return { kind: 'account', accountId: (principal as AccountPrincipal).accountId };
  if (principal.kind === 'partner') {
    const applicationId = await tenancy.applicationIdOf((principal as PartnerPrincipal).clientId);
    if (applicationId) return { kind: 'partner', applicationId };
  }
  throw forbidden('Only an account’s or an auction partner’s token has webhook subscriptions.');
}

/**
 * What allows a receiver on a non-public address, said with each refusal of one: an integrator with
 * a receiver on localhost learns what to ask the operator for (config.ts: OUTBOUND_ALLOW_HOSTS, or
 * WEBHOOK_ALLOW_HOSTS once the lists are set per purpose), or to expose it publicly.
 */
const NON_PUBLIC_REMEDY =
  'a webhook reaches one only if the operator allow-lists its host (OUTBOUND_ALLOW_HOSTS, or WEBHOOK_ALLOW_HOSTS where the lists are set per purpose); otherwise use a public receiver, such as a tunnel';

/** A delivery URL: http(s), no credentials, and every address it resolves to public — unless allow-listed. */
async function urlFaults(deps: SubscriptionDeps, raw: string): Promise<FieldError[]> {
  if (raw.length > LIMITS.urlLength)
    return [{ path: 'url', message: `must be at most ${LIMITS.urlLength} characters` }];
  const checked = checkUrl(raw, deps.allowHosts);
  if (!checked.ok) {
    const message = {
      INVALID_URL: 'is not an absolute URL',
      SCHEME_NOT_ALLOWED: 'must be an http or https URL',
      CREDENTIALS_NOT_ALLOWED: 'must not carry a user name or password',
      ADDRESS_NOT_ALLOWED: `is a loopback, private, link-local or otherwise non-public address: ${NON_PUBLIC_REMEDY}`,
    }[checked.refusal];
    return [{ path: 'url', message }];
  }
  const { hostname, port, protocol } = checked.url;
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  if (hostAllowed(deps.allowHosts, hostname, port || defaultPort(protocol))) return [];
  try {
    await resolveVetted(host, systemLookup);
  } catch (error) {
    // A name that does not resolve yet is accepted (DNS may follow); each delivery checks it again.
    if (error instanceof FetchError && error.code === 'ADDRESS_NOT_ALLOWED')
      return [{ path: 'url', message: `resolves to a non-public address (${error.message}): ${NON_PUBLIC_REMEDY}` }];
  }
  return [];
}

/** Facility ids the owner may not name (another account's, or not one of the partner's). */
async function foreignFacilities(tenancy: PushTenancy, owner: Owner, facilityIds: EntityId[]): Promise<FieldError[]> {
  const own = await tenancy.facilitiesAmong(owner, facilityIds);
  return facilityIds.flatMap((id, i) =>
    own.has(id) ? [] : [{ path: `facilityIds[${i}]`, message: 'is not a facility this token may see' }],
  );
}

const knownEventTypes = (types: unknown) =>
  new Set((Array.isArray(types) ? types : []).filter((t) => typeof t === 'number' && eventTypeInfo(t) !== undefined));

/** Every fault of a subscription body (after the schema's): topics the owner may not take are 403. */
async function judge(
  deps: SubscriptionDeps,
  owner: Owner,
  input: SubscriptionInput & { topics: string[] },
): Promise<void> {
  const refused = forbiddenTopics(owner.kind, input.topics);
  if (refused.length > 0)
    throw new AppError(
      403,
      'TOPIC_NOT_ALLOWED',
      `This token may not subscribe to ${refused.join(', ')}: an account subscribes to gateway.events, command.status, facility.status and facility.drift; an auction partner to auction.status.`,
    );
  const faults = [
    ...subscriptionFaults(input, knownEventTypes(input.eventTypes)),
    ...filterFaults(input.topics, input.eventTypes),
    ...(typeof input.url === 'string' ? await urlFaults(deps, input.url) : []),
    ...(Array.isArray(input.facilityIds)
      ? await foreignFacilities(deps.tenancy, owner, input.facilityIds as EntityId[])
      : []),
  ];
  if (faults.length > 0) throw validationFailed(faults);
}

export interface CreateInput {
  url: string;
  topics: string[];
  eventTypes?: number[] | null;
  facilityIds?: EntityId[] | null;
  description?: string | null;
}

export async function createSubscription(
  deps: SubscriptionDeps,
  principal: Principal,
  input: CreateInput,
): Promise<SubscriptionView & { secret: string }> {
  const owner = await ownerOf(deps.tenancy, principal);
  await judge(deps, owner, input);
  if ((await repo.countSubscriptions(deps.db, owner)) >= LIMITS.subscriptionsPerOwner)
    throw conflict(
      'SUBSCRIPTION_LIMIT_REACHED',
      `An account or partner has at most ${LIMITS.subscriptionsPerOwner} webhook subscriptions; delete one first.`,
    );
  const secret = newWebhookSecret();
  const horizon = await currentHorizon(deps.db);
  const row = await deps.db.transaction().execute((trx) =>
    repo.insertSubscription(
      trx,
      owner,
      {
        url: input.url,
        topics: input.topics as Topic[],
        eventTypes: input.eventTypes ?? null,
        facilityIds: input.facilityIds ?? null,
        description: input.description ?? null,
        horizon,
      },
      (id) => deps.sealer.seal(binding(id), secret),
    ),
  );
  return { ...subscriptionView(row), secret };
}

async function ownSubscription(
  deps: SubscriptionDeps,
  principal: Principal,
  id: EntityId,
): Promise<[Owner, repo.SubscriptionRow]> {
  const owner = await ownerOf(deps.tenancy, principal);
  const row = await repo.selectSubscription(deps.db, id, owner);
  if (!row) throw notFound('The webhook subscription');
  return [owner, row];
}

export async function getSubscription(
  deps: SubscriptionDeps,
  principal: Principal,
  id: EntityId,
): Promise<SubscriptionView> {
  return subscriptionView((await ownSubscription(deps, principal, id))[1]);
}

export async function listSubscriptions(
  deps: SubscriptionDeps,
  principal: Principal,
  page: { afterId: EntityId | null; limit: number },
): Promise<SubscriptionView[]> {
  const owner = await ownerOf(deps.tenancy, principal);
  return (await repo.selectSubscriptions(deps.db, owner, page)).map(subscriptionView);
}

export interface UpdateInput {
  url?: string;
  topics?: string[];
  eventTypes?: number[] | null;
  facilityIds?: EntityId[] | null;
  description?: string | null;
  status?: 'enabled' | 'disabled';
}

export async function updateSubscription(
  deps: SubscriptionDeps,
  principal: Principal,
  id: EntityId,
  input: UpdateInput,
): Promise<SubscriptionView> {
  const [owner, current] = await ownSubscription(deps, principal, id);
  const topics = input.topics ?? current.topics;
  const eventTypes = input.eventTypes !== undefined ? input.eventTypes : current.event_types;
  await judge(deps, owner, { ...input, topics, eventTypes });
  const change: repo.SubscriptionChange = {};
  if (input.url !== undefined) change.url = input.url;
  if (input.topics !== undefined) change.topics = input.topics as Topic[];
  if (input.eventTypes !== undefined) change.event_types = input.eventTypes;
  if (input.facilityIds !== undefined) change.facility_ids = input.facilityIds;
  if (input.description !== undefined) change.description = input.description;
  if (input.status === 'disabled') Object.assign(change, { status: 'disabled', disabled_reason: 'owner' });
  // Enabled again: a fresh start for its health (a disabled-for-failing one starts failing anew if still down).
  if (input.status === 'enabled' && current.status === 'disabled')
    Object.assign(change, {
      status: 'enabled',
      disabled_reason: null,
      failing_since: null,
      next_attempt_at: new Date(),
    });
  const row = (await repo.updateSubscription(deps.db, id, change, owner))!;
  if (row.status === 'enabled') deps.kick(id);
  return subscriptionView(row);
}

export async function deleteSubscription(deps: SubscriptionDeps, principal: Principal, id: EntityId): Promise<void> {
  const owner = await ownerOf(deps.tenancy, principal);
  if (!(await repo.deleteSubscription(deps.db, id, owner))) throw notFound('The webhook subscription');
}

/** A new secret; the current one stays valid (both signatures sent) for 24 hours. */
export async function rotateSecret(
  deps: SubscriptionDeps,
  principal: Principal,
  id: EntityId,
): Promise<{ id: EntityId; secret: string; previousSecretExpiresAt: string }> {
  const [owner, current] = await ownSubscription(deps, principal, id);
  const secret = newWebhookSecret();
  const until = new Date(Date.now() + LIMITS.previousSecretHours * 3600_000);
  await repo.updateSubscription(
    deps.db,
    id,
    {
      secret_sealed: deps.sealer.seal(binding(id), secret),
      previous_secret_sealed: current.secret_sealed,
      previous_secret_until: until,
    },
    owner,
  );
  return { id, secret, previousSecretExpiresAt: until.toISOString() };
}

/**
 * A `ping` delivery, sent now, outside the lane (a test must not wait behind a failing head), and
 * recorded in the delivery log with its outcome.
 */
export async function testSubscription(
  deps: SubscriptionDeps,
  principal: Principal,
  id: EntityId,
): Promise<{ deliveryId: string; delivered: boolean; responseStatus: number | null; error: string | null }> {
  const [, s] = await ownSubscription(deps, principal, id);
  const deliveryId = randomUUID();
  const now = new Date();
  const body = webhookEnvelope(deliveryId, 'ping', now, {
    subscriptionId: id,
    message: 'A test delivery from Gatehouse.',
  });
  const sent = await deps.sender.send(s.url, { id: deliveryId, body, secrets: secretsOf(deps.sealer, s, now) }, now);
  const responseStatus = sent.status;
  const error = attemptError(sent);
  await deps.db.transaction().execute(async (trx) => {
    await repo.insertDeliveries(trx, id, [{ id: deliveryId, type: 'ping', createdAt: now, body, slice: null }]);
    await repo.recordAttempt(trx, deliveryId, {
      status: error === null ? 'delivered' : 'failed',
      responseStatus,
      error,
      nextAt: null,
    });
  });
  return { deliveryId, delivered: error === null, responseStatus, error };
}

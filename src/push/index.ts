// The push face (SPEC §6.4, issue 14): webhook subscriptions, their lanes and delivery log. Built
// once by the composition root. Its anatomy: routes/ (subscriptions and deliveries for their
// owners, the operator's list), the operations (subscriptions.ts, deliveries.ts), the lanes
// (lane.ts, worked by dispatcher.ts), what they read (sources.ts: the facts the other faces
// store, the outbox), the SQL (repository.ts), pure rules (rules.ts), tables.ts and jobs.ts.
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { Db } from '../db/tables.ts';
import type { EntityId } from '../ids.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../http/metrics.ts';
import { WebhookSender } from '../net/webhook-sender.ts';
import type { Sealer } from '../sealed.ts';
import type { SupportRaise } from '../support/index.ts';
import { type DeliveryDeps, listDeliveries, replay, retryDelivery } from './deliveries.ts';
import { Dispatcher, type LaneInfo } from './dispatcher.ts';
import { pushJobs, RETRY_JOB } from './jobs.ts';
import { workLane } from './lane.ts';
import { createPushMetrics } from './metrics.ts';
import * as repo from './repository.ts';
import { disabledNotification, retrySchedule } from './rules.ts';
import { createLaneReads, dueLanes, type PushFacts } from './sources.ts';
import {
  adminSubscriptionView,
  createSubscription,
  deleteSubscription,
  getSubscription,
  listSubscriptions,
  rotateSecret,
  secretsOf,
  type PushTenancy,
  type SubscriptionDeps,
  testSubscription,
  updateSubscription,
} from './subscriptions.ts';

export interface PushDeps {
  database: Database;
  config: Pick<
    Config,
    | 'webhookAllowHosts'
    | 'eventRetentionDays'
    | 'webhookTimeoutMs'
    | 'webhookRetryBaseMs'
    | 'webhookDisableAfterSeconds'
    | 'webhookSweepMs'
    | 'webhookConnectTimeoutMs'
    | 'webhookFirstByteTimeoutMs'
    | 'webhookConcurrency'
    | 'webhookFailingConcurrency'
    | 'webhookLanesPerOwner'
    | 'webhookPendingPerSubscription'
  >;
  logger: Logger;
  metrics: Metrics;
  jobs: JobQueue;
  /** The signing secrets' sealer (its key derived from the service's code key). */
  sealer: Sealer;
  /** Who owns a subscription, and which facilities it may name: asked of tenancy's face. */
  tenancy: PushTenancy;
  /** The facts delivered, each read through the face that owns it (built by the composition root). */
  facts: PushFacts;
  /**
   * The support room's one way in (handed in by the composition root): a subscription disabled for
   * failing raises WEBHOOK_DISABLED, worded here (rules.ts: disabledNotification), in the transaction.
   */
  raise: SupportRaise;
}

export async function createPush(deps: PushDeps) {
  const { database, config, logger } = deps;
  const { db } = database;
  const sender = new WebhookSender({
    allowHosts: config.webhookAllowHosts,
    timeoutMs: config.webhookTimeoutMs,
    // A receiver that accepts and stalls is given up well before the whole limit (issue 23).
    connectTimeoutMs: config.webhookConnectTimeoutMs,
    firstByteTimeoutMs: config.webhookFirstByteTimeoutMs,
    userAgent: 'Gatehouse-Webhooks/1.0',
  });
  // The account's lanes the event signal kicks, and every lane's owner and health (the dispatcher's
  // fair share); kept by the sweep and by this instance's changes.
  let lanesOfAccount = new Map<EntityId, EntityId[]>();
  let lanes = new Map<EntityId, LaneInfo>();
  const metrics = createPushMetrics(deps.metrics.registry, () => {
    let failing = 0;
    for (const lane of lanes.values()) if (lane.failing) failing++;
    return failing;
  });
  const refreshLanes = async () => {
    const signalled = new Map<EntityId, EntityId[]>();
    const info = new Map<EntityId, LaneInfo>();
    for (const lane of await repo.enabledLanes(db)) {
      info.set(lane.id, {
        owner: lane.account_id !== null ? `account:${lane.account_id}` : `partner:${lane.application_id}`,
        failing: lane.failing,
      });
      if (lane.signalled) signalled.set(lane.account_id!, [...(signalled.get(lane.account_id!) ?? []), lane.id]);
    }
    lanesOfAccount = signalled;
    lanes = info;
  };
  // The lanes' work follows the events as they are stored: through the tails' pool (Database.tailDb),
  // never waiting behind the requests' queue.
  const laneDb = database.tailDb;
  const reads = createLaneReads(laneDb, deps.facts);
  const dispatcher: Dispatcher = new Dispatcher({
    concurrency: config.webhookConcurrency,
    failingConcurrency: config.webhookFailingConcurrency,
    perOwner: config.webhookLanesPerOwner,
    sweepMs: config.webhookSweepMs,
    logger,
    laneOf: (id) => lanes.get(id),
    async work(id, signal) {
      const result = await workLane(
        {
          db: laneDb,
          facts: deps.facts,
          reads,
          sender,
          logger,
          secretsOf: (s, now) => secretsOf(deps.sealer, s, now),
          retrySchedule: retrySchedule(config.webhookRetryBaseMs),
          timeoutMs: config.webhookTimeoutMs,
          disableAfterMs: config.webhookDisableAfterSeconds * 1000,
          onDisabled: async (trx: Db, subscription, now) => {
            await deps.raise(trx, now, [disabledNotification(subscription)]);
          },
          onAttempt: (outcome, ms) => metrics.attempts.observe({ outcome }, ms / 1000),
          onDelivered: (createdAt, at) => metrics.delivered.observe(Math.max(0, at - createdAt) / 1000),
        },
        id,
        signal,
      );
      return result.outcome === 'busy' ? 'busy' : { retryAt: result.retryAt, failing: result.failing };
    },
    async due() {
      await refreshLanes();
      return dueLanes(deps.facts, await repo.sweptLanes(db), 1000);
    },
    async scheduleRetry(id, at) {
      await deps.jobs.send(RETRY_JOB, { subscriptionId: id }, { startAfter: at });
    },
  });
  const kick = (id: EntityId) => {
    // A change of this instance's subscriptions is seen at once (by the signal, and its owner by the
    // dispatcher), not at the next sweep; a turn in progress ends, and the next one reads the lane again.
    void refreshLanes()
      .catch(() => {})
      .then(() => dispatcher.kick(id, true));
  };
  const subscriptions: SubscriptionDeps = {
    db,
    tenancy: deps.tenancy,
    sealer: deps.sealer,
    sender,
    allowHosts: config.webhookAllowHosts,
    kick,
  };
  const deliveries: DeliveryDeps = {
    db,
    tenancy: deps.tenancy,
    facts: deps.facts,
    retentionDays: config.eventRetentionDays,
    pendingPerSubscription: config.webhookPendingPerSubscription,
    kick,
  };
  const on =
    <P, A extends unknown[], R>(parts: P, operation: (parts: P, ...args: A) => R) =>
    (...args: A): R =>
      operation(parts, ...args);
  return {
    subscriptions,
    deliveries,
    createSubscription: on(subscriptions, createSubscription),
    listSubscriptions: on(subscriptions, listSubscriptions),
    getSubscription: on(subscriptions, getSubscription),
    updateSubscription: on(subscriptions, updateSubscription),
    deleteSubscription: on(subscriptions, deleteSubscription),
    rotateSecret: on(subscriptions, rotateSecret),
    testSubscription: on(subscriptions, testSubscription),
    listDeliveries: on(deliveries, listDeliveries),
    retryDelivery: on(deliveries, retryDelivery),
    replay: on(deliveries, replay),
    /** The operator's list of every subscription and its health (/admin/webhooks/subscriptions). */
    async listAllSubscriptions(options: { afterId: EntityId | null; limit: number; failingOnly: boolean }) {
      return (await repo.selectSubscriptions(db, null, options)).map(adminSubscriptionView);
    },
    /** An account's events (or command acknowledgements) committed: work its lanes. */
    eventsStored(accountId: EntityId) {
      for (const id of lanesOfAccount.get(accountId) ?? []) dispatcher.kick(id);
    },
    jobs: pushJobs({ db, logger, kick: (id) => dispatcher.kick(id) }),
    async start() {
      // The embedded database has one server: a lease it finds was left by its own previous run.
      if (database.kind === 'embedded') await repo.releaseAllLanes(db);
      dispatcher.start();
      void refreshLanes().catch(() => {});
    },
    async close() {
      await dispatcher.close();
      await sender.close();
    },
  };
}

export type Push = Awaited<ReturnType<typeof createPush>>;

// /webhooks/subscriptions (scope webhooks): the caller's own subscriptions, their delivery log,
// retries, replays, rotations and tests. Another owner's subscription is 404.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/caller.ts';
import { scoped } from '../../http/access.ts';
import { Answer } from '../../http/schemas.ts';
import type { Push } from '../index.ts';
import {
  CreatedSubscription,
  CreateSubscriptionBody,
  Delivery,
  DeliveryPage,
  DELIVERY_NOT_FOUND,
  DeliveryParams,
  DeliveryQuery,
  LIMIT_REACHED,
  ListQuery,
  REPLAY_TOO_LARGE,
  ReplayBody,
  ReplayOutcome,
  RotatedSecret,
  SUBSCRIPTION_NOT_FOUND,
  Subscription,
  SubscriptionParams,
  TAGS as tags,
  TestDeliveryOutcome,
  UpdateSubscriptionBody,
} from '../schemas.ts';

const WEBHOOKS = scoped('webhooks');
const BASE = '/webhooks/subscriptions';

export const subscriptionRoutes: FastifyPluginAsyncTypebox<{ face: Push }> = async (app, { face }) => {
  app.post(
    BASE,
    {
      config: WEBHOOKS,
      schema: {
        operationId: 'createWebhookSubscription',
        tags,
        summary: 'Subscribe a URL to topics.',
        description:
          'The answer carries the signing `secret`, shown this once. 403 TOPIC_NOT_ALLOWED for a topic of the other kind of owner; 409 SUBSCRIPTION_LIMIT_REACHED past 100 subscriptions.',
        body: CreateSubscriptionBody,
        response: {
          201: Answer('The subscription, with its signing secret (shown this once).', CreatedSubscription),
          409: LIMIT_REACHED,
        },
      },
    },
    async (request, reply) => reply.code(201).send(await face.createSubscription(principalOf(request), request.body)),
  );

  app.get(
    BASE,
    {
      config: WEBHOOKS,
      schema: {
        operationId: 'listWebhookSubscriptions',
        tags,
        summary: 'The caller’s subscriptions, by id.',
        querystring: ListQuery,
        response: {
          200: Answer('The caller’s subscriptions, by id (after the id `after`).', Type.Array(Subscription)),
        },
      },
    },
    async (request) =>
      face.listSubscriptions(principalOf(request), {
        afterId: request.query.after ?? null,
        limit: request.query.limit ?? 100,
      }),
  );

  app.get(
    `${BASE}/:subscriptionId`,
    {
      config: WEBHOOKS,
      schema: {
        operationId: 'getWebhookSubscription',
        tags,
        summary: 'A subscription and its health.',
        params: SubscriptionParams,
        response: { 200: Answer('The subscription and its health.', Subscription), 404: SUBSCRIPTION_NOT_FOUND },
      },
    },
    async (request) => face.getSubscription(principalOf(request), request.params.subscriptionId),
  );

  app.patch(
    `${BASE}/:subscriptionId`,
    {
      config: WEBHOOKS,
      schema: {
        operationId: 'updateWebhookSubscription',
        tags,
        summary: 'Change a subscription’s URL, topics, filters, description or status.',
        description: 'Enabling a subscription that was disabled for failing resumes its lane where it stopped.',
        params: SubscriptionParams,
        body: UpdateSubscriptionBody,
        response: { 200: Answer('The subscription as changed.', Subscription), 404: SUBSCRIPTION_NOT_FOUND },
      },
    },
    async (request) => face.updateSubscription(principalOf(request), request.params.subscriptionId, request.body),
  );

  app.delete(
    `${BASE}/:subscriptionId`,
    {
      config: WEBHOOKS,
      schema: {
        operationId: 'deleteWebhookSubscription',
        tags,
        summary: 'Remove a subscription and its delivery log.',
        params: SubscriptionParams,
        response: { 204: Answer('Removed, with its delivery log.', Type.Null()), 404: SUBSCRIPTION_NOT_FOUND },
      },
    },
    async (request, reply) => {
      await face.deleteSubscription(principalOf(request), request.params.subscriptionId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    `${BASE}/:subscriptionId/rotate-secret`,
    {
      config: WEBHOOKS,
      schema: {
        operationId: 'rotateWebhookSecret',
        tags,
        summary: 'A new signing secret; the old one stays valid (both signatures sent) for 24 hours.',
        params: SubscriptionParams,
        response: {
          200: Answer('The new secret (shown this once) and when the previous one expires.', RotatedSecret),
          404: SUBSCRIPTION_NOT_FOUND,
        },
      },
    },
    async (request) => face.rotateSecret(principalOf(request), request.params.subscriptionId),
  );

  app.post(
    `${BASE}/:subscriptionId/test`,
    {
      config: WEBHOOKS,
      schema: {
        operationId: 'sendTestWebhook',
        tags,
        summary: 'Send a `ping` delivery now and answer with its outcome.',
        params: SubscriptionParams,
        response: {
          200: Answer('The outcome of the ping delivery (also in the delivery log).', TestDeliveryOutcome),
          404: SUBSCRIPTION_NOT_FOUND,
        },
      },
    },
    async (request) => face.testSubscription(principalOf(request), request.params.subscriptionId),
  );

  app.get(
    `${BASE}/:subscriptionId/deliveries`,
    {
      config: WEBHOOKS,
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        summary: 'The delivery log, newest first.',
        params: SubscriptionParams,
        querystring: DeliveryQuery,
        response: {
          200: Answer('A page of the delivery log, newest first.', DeliveryPage),
          404: SUBSCRIPTION_NOT_FOUND,
        },
      },
    },
    async (request) =>
      face.listDeliveries(principalOf(request), request.params.subscriptionId, {
        before: request.query.before ?? null,
        limit: request.query.limit ?? 50,
      }),
  );

  app.post(
    `${BASE}/:subscriptionId/deliveries/:deliveryId/retry`,
    {
      config: WEBHOOKS,
      schema: {
        operationId: 'retryWebhookDelivery',
        tags,
        summary: 'Send a delivery again now.',
        params: DeliveryParams,
        response: { 202: Answer('The delivery, queued to be sent again now.', Delivery), 404: DELIVERY_NOT_FOUND },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(await face.retryDelivery(principalOf(request), request.params.subscriptionId, request.params.deliveryId)),
  );

  app.post(
    `${BASE}/:subscriptionId/replay`,
    {
      config: WEBHOOKS,
      schema: {
        operationId: 'replayWebhookEvents',
        tags,
        summary: 'Send again everything of the subscription’s topics since a time within retention.',
        description:
          'One replay per subscription at a time: a new replay replaces the deliveries of the previous one not yet delivered (`replaced` counts them). 409 REPLAY_TOO_LARGE when the replay would take the subscription past the pending deliveries it may hold (10,000 by default); nothing is then queued.',
        params: SubscriptionParams,
        body: ReplayBody,
        response: {
          202: Answer('What is being sent again.', ReplayOutcome),
          404: SUBSCRIPTION_NOT_FOUND,
          409: REPLAY_TOO_LARGE,
        },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(await face.replay(principalOf(request), request.params.subscriptionId, new Date(request.body.since))),
  );
};

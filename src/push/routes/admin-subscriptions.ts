// /admin/webhooks/subscriptions (the operator): every subscription with its health — the failing
// ones first to look at — and any one's delivery log.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OPERATOR } from '../../http/access.ts';
import { Answer } from '../../http/schemas.ts';
import type { Push } from '../index.ts';
import { AdminSubscription, DeliveryPage, DeliveryQuery, ListQuery, SubscriptionParams } from '../schemas.ts';
import { Refused } from '../../http/problem.ts';

const tags = ['admin'];

export const adminSubscriptionRoutes: FastifyPluginAsyncTypebox<{ face: Push }> = async (app, { face }) => {
  app.get(
    '/admin/webhooks/subscriptions',
    {
      config: OPERATOR,
      schema: {
        operationId: 'adminListWebhookSubscriptions',
        tags,
        summary: 'Every webhook subscription and its health.',
        querystring: Type.Intersect([
          ListQuery,
          Type.Object({
            failing: Type.Optional(Type.Boolean({ description: 'Only those failing now or disabled for failing.' })),
          }),
        ]),
        response: {
          200: Answer(
            'Subscriptions by id (after the id `after`), with their health and owner.',
            Type.Array(AdminSubscription),
          ),
        },
      },
    },
    async (request) =>
      face.listAllSubscriptions({
        afterId: request.query.after ?? null,
        limit: request.query.limit ?? 100,
        failingOnly: request.query.failing ?? false,
      }),
  );

  app.get(
    '/admin/webhooks/subscriptions/:subscriptionId/deliveries',
    {
      config: OPERATOR,
      schema: {
        operationId: 'adminListWebhookDeliveries',
        tags,
        summary: 'A subscription’s delivery log.',
        params: SubscriptionParams,
        querystring: DeliveryQuery,
        response: {
          200: Answer('A page of the delivery log, newest first.', DeliveryPage),
          404: Refused('NOT_FOUND: no such subscription.'),
        },
      },
    },
    async (request) =>
      face.listDeliveries(null, request.params.subscriptionId, {
        before: request.query.before ?? null,
        limit: request.query.limit ?? 50,
      }),
  );
};

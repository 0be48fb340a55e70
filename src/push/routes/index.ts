// The push face's routes: the owners' subscriptions and delivery logs, and the operator's view.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Push } from '../index.ts';
import { adminSubscriptionRoutes } from './admin-subscriptions.ts';
import { subscriptionRoutes } from './subscriptions.ts';

export const pushRoutes: FastifyPluginAsyncTypebox<{ face: Push }> = async (app, options) => {
  for (const routes of [subscriptionRoutes, adminSubscriptionRoutes]) await app.register(routes, options);
};

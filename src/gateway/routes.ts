// The gateway controller's face (/gateway/v1): event ingest and the command long-poll.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.ts';
import { gatewayCommandRoutes } from './commands-route.ts';
import { gatewayEventRoutes } from './events-route.ts';

export const gatewayRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, options) => {
  await app.register(gatewayEventRoutes, options);
  await app.register(gatewayCommandRoutes, options);
};

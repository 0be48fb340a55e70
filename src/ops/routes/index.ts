// The operations face: liveness and readiness (public, for probes) and metrics (an operator's token).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services.ts';
import { healthRoutes } from './health.ts';
import { metricsRoutes } from './metrics.ts';

export const opsRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, options) => {
  for (const routes of [healthRoutes, metricsRoutes]) await app.register(routes, options);
};

// The operations face: liveness and readiness (public, for probes), metrics (an operator's token),
// and GET /, which leads to the API reference.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Ops } from '../index.ts';
import { healthRoutes } from './health.ts';
import { metricsRoutes } from './metrics.ts';
import { rootRoutes } from './root.ts';

export const opsRoutes: FastifyPluginAsyncTypebox<Ops> = async (app, options) => {
  for (const routes of [healthRoutes, metricsRoutes, rootRoutes]) await app.register(routes, options);
};

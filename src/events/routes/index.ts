// The access-event face's routes, one plugin per API version, each registered in that version's
// document scope by app.ts: v3.0 (types, pages, CSV export, live stream, combined events), and the legacy 2.0
// (with the combined events again, constrained to 2.0) and 1.0 routes.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ensureApiVersionConstraint, serveApiVersion } from '../../http/versioning.ts';
import type { EventRouteOptions } from './common.ts';
import { combinedEventRoutes } from './combined-events.ts';
import { versionsOfRoute } from './common.ts';
import { exportRoutes } from './export.ts';
import { gatewayEventRoutes } from './gateway-events.ts';
import { legacyV1Routes } from './legacy-v1.ts';
import { legacyV2Routes } from './legacy-v2.ts';
import { streamRoutes } from './stream.ts';
import { eventTypeRoutes } from './types.ts';

type Options = EventRouteOptions;

export const eventRoutes: FastifyPluginAsyncTypebox<Options> = async (app, options) => {
  ensureApiVersionConstraint(app);
  serveApiVersion(app, '3.0', { isDefault: true, versionsOfRoute });
  for (const routes of [eventTypeRoutes, gatewayEventRoutes, exportRoutes, streamRoutes])
    await app.register(routes, options);
  await app.register(combinedEventRoutes, { ...options, apiVersion: '3.0' });
};

export const eventRoutesV2: FastifyPluginAsyncTypebox<Options> = async (app, options) => {
  ensureApiVersionConstraint(app);
  serveApiVersion(app, '2.0', { isDefault: true, versionsOfRoute });
  await app.register(legacyV2Routes, options);
  await app.register(combinedEventRoutes, { ...options, apiVersion: '2.0' });
};

export const eventRoutesV1: FastifyPluginAsyncTypebox<Options> = async (app, options) => {
  ensureApiVersionConstraint(app);
  serveApiVersion(app, '1.0', { isDefault: false, versionsOfRoute });
  await app.register(legacyV1Routes, options);
};

// POST /gateway/v1/events — ingest of the controller's events.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.ts';

export const gatewayEventRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async () => {};

// GET /gateway/v1/commands — the controller's long-poll for its commands.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.ts';

export const gatewayCommandRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async () => {};

// The support console: a web page at /console.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.ts';

export const consoleRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async () => {};

// The access-control face (/facilities): units, visitors, time groups, access profiles, commands.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.ts';

export const accessControlRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async () => {};

// The auction-import face (/api/3) and the auction admin routes.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.ts';

export const auctionRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async () => {};

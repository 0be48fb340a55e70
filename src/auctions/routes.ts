// The auction face: the partner routes under /api/3 (in the envelope), the admin routes of
// support and the marketplace, and the public media route of stored images.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.ts';
import { adminAuctionRoutes } from './admin-routes.ts';
import { API3_PREFIX } from './envelope.ts';
import { mediaRoutes } from './media-routes.ts';
import { partnerRoutes } from './partner-routes.ts';

export const auctionRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const face = services.auctions;
  await app.register(partnerRoutes, { prefix: API3_PREFIX, face, recreateWaitMinutes: services.config.auctionRecreateWaitMinutes });
  await app.register(adminAuctionRoutes, { face });
  await app.register(mediaRoutes, { face });
};

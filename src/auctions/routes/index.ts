// The auction face's routes, one plugin per resource: the partner's under /api/3 (answered in
// the envelope, envelope.ts) with support's and the marketplace's under /admin (`auctionRoutes`),
// and the public /media (`mediaRoutes`, registered by app.ts after the support room's routes, where
// the OpenAPI document has always listed it).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AuctionSettings, Auctions } from '../index.ts';
import { API3_PREFIX, registerEnvelopeHandling } from '../envelope.ts';
import { adminAuctionRoutes } from './admin-auctions.ts';
import { auctionInfoRoutes } from './auctioninfo.ts';
import { partnerAuctionRoutes } from './auctions.ts';
import { cancelAuctionsRoutes } from './cancelauctions.ts';
import { charityEnrolmentRoutes } from './charity-enrolment.ts';
import { mediaRoutes } from './media.ts';

export { mediaRoutes };

type Options = { face: Auctions; settings: AuctionSettings };

const partnerApi: FastifyPluginAsyncTypebox<Options> = async (app, { face, settings }) => {
  // Before the routes: their documented error answers are the envelope's.
  registerEnvelopeHandling(app);
  await app.register(auctionInfoRoutes, { face, settings });
  for (const routes of [cancelAuctionsRoutes, partnerAuctionRoutes]) await app.register(routes, { face });
};

export const auctionRoutes: FastifyPluginAsyncTypebox<Options> = async (app, { face, settings }) => {
  await app.register(partnerApi, { face, settings, prefix: API3_PREFIX });
  for (const routes of [adminAuctionRoutes, charityEnrolmentRoutes]) await app.register(routes, { face });
};

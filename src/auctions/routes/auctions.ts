// GET /api/3/auctions and /api/3/auctions/{auctionId}: a partner reads its auctions (reads.ts).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { scoped } from '../../http/access.ts';
import { Answer } from '../../http/schemas.ts';
import type { Auctions } from '../index.ts';
import { EnvelopeOf, ErrorEnvelope, PARTNER_ERRORS, envelope, sendEnvelope } from '../envelope.ts';
import { Auction, AuctionPage, ListQuery, importTags as tags } from '../schemas.ts';
import { partnerOf } from './request.ts';

export const partnerAuctionRoutes: FastifyPluginAsyncTypebox<{ face: Auctions }> = async (app, { face }) => {
  const READ = scoped('auctions:read');

  app.get(
    '/auctions',
    {
      config: READ,
      schema: {
        operationId: 'listAuctions',
        tags,
        summary: "List the partner's auctions.",
        description:
          'Newest first, filtered by facility (guid), status and unitId; paged by `limit` (1–500, ' +
          'default 100) and the opaque `cursor` of the previous page (`nextCursor`). ' +
          'Items carry no images or history: read one auction for those.',
        querystring: ListQuery,
        response: {
          200: Answer('A page of the partner’s auctions.', EnvelopeOf(AuctionPage)),
          400: ErrorEnvelope('An invalid query parameter or cursor.'),
          ...PARTNER_ERRORS,
        },
      },
    },
    async (request, reply) => {
      const partner = partnerOf(request);
      return sendEnvelope(reply, 200, envelope(200, await face.listAuctionsForPartner(partner, request.query)));
    },
  );

  app.get(
    '/auctions/:auctionId',
    {
      config: READ,
      schema: {
        operationId: 'getAuction',
        tags,
        summary: 'Read one auction: record, status, images and history.',
        description:
          'Each image shows its retrieval: pending, stored (with its /media URL, type, size, ' +
          'dimensions and SHA-256) or failed (with the error). The history lists every change with time, ' +
          'actor and reason, oldest first.',
        params: Type.Object({ auctionId: Type.String({ maxLength: 100 }) }),
        response: {
          200: Answer('The auction, with its images and history.', EnvelopeOf(Auction)),
          ...PARTNER_ERRORS,
          404: ErrorEnvelope('No such auction is visible to this partner (AUCTION_NOT_FOUND).'),
        },
      },
    },
    async (request, reply) => {
      const partner = partnerOf(request);
      return sendEnvelope(
        reply,
        200,
        envelope(200, await face.getAuctionForPartner(partner, request.params.auctionId)),
      );
    },
  );
};

// /admin/auctions: what support and the marketplace do to auctions (scope admin: an operator's
// token) — list and read (reads.ts), report a sale (closing.ts), change a Pending auction
// (amend.ts), cancel (cancel.ts). Errors are problem+json, as everywhere outside /api/3.
import { EntityId, Answer, Nullable, StringEnum } from '../../http/schemas.ts';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OPERATOR } from '../../http/access.ts';
import type { Auctions } from '../index.ts';
import { AUCTION_TYPES, LIMITS } from '../model.ts';
import { Auction, AuctionPage, AuctionStatus, adminTags as tags } from '../schemas.ts';
import { actorOf } from '../../http/caller.ts';
import { bodyJudgedByOperation } from './request.ts';
import { Refused } from '../../http/problem.ts';

const AuctionParams = Type.Object({ auctionId: Type.String({ maxLength: 100 }) });

const NO_SUCH_AUCTION = Refused('No auction has that id (NOT_FOUND).');

const RecordPatch = Type.Object(
  {
    auctionType: Type.Optional(Type.Union(AUCTION_TYPES.map((t) => Type.Literal(t)))),
    unitName: Type.Optional(Type.String()),
    unitWidth: Type.Optional(Nullable(Type.Number())),
    unitLength: Type.Optional(Nullable(Type.Number())),
    description: Type.Optional(Nullable(Type.String())),
    categories: Type.Optional(Type.Array(Type.String())),
    tenantName: Type.Optional(Nullable(Type.String())),
    startsAt: Type.Optional(Nullable(Type.String())),
    endsAt: Type.Optional(Nullable(Type.String())),
    minimumBid: Type.Optional(Nullable(Type.Number())),
    imageUrls: Type.Optional(Type.Array(Type.String())),
  },
  { description: 'Any fields of the record (same rules as in POST /api/3/auctioninfo); unitId cannot change.' },
);

export const adminAuctionRoutes: FastifyPluginAsyncTypebox<{ face: Auctions }> = async (app, { face }) => {
  app.get(
    '/admin/auctions',
    {
      config: OPERATOR,
      schema: {
        operationId: 'adminListAuctions',
        tags,
        summary: 'List auctions (support).',
        description:
          'Newest first, or with `order=facility` by facility name then unit id (support’s queue; names and ' +
          'units compare byte-wise); filtered by facility, status and unit; paged by `limit` (1–500, default ' +
          '100) and `cursor` (a cursor continues the order it was issued in).',
        querystring: Type.Object({
          facilityId: Type.Optional(EntityId('Only this facility’s auctions.')),
          status: Type.Optional(AuctionStatus),
          unitId: Type.Optional(Type.String({ maxLength: LIMITS.unitIdLength })),
          order: StringEnum(['newest', 'facility'] as const, {
            default: 'newest',
            description: 'newest: newest first. facility: by facility name, then unit id.',
          }),
          limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
          cursor: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: { 200: Answer('A page of auctions.', AuctionPage) },
      },
    },
    async (request) => face.listAllAuctions(request.query),
  );

  app.get(
    '/admin/auctions/:auctionId',
    {
      config: OPERATOR,
      schema: {
        operationId: 'adminGetAuction',
        tags,
        summary: 'Read one auction with its images and history.',
        params: AuctionParams,
        response: { 200: Answer('The auction, with its images and history.', Auction), 404: NO_SUCH_AUCTION },
      },
    },
    async (request) => face.getAuction(request.params.auctionId),
  );

  app.post(
    '/admin/auctions/:auctionId/outcome',
    {
      config: OPERATOR,
      schema: {
        operationId: 'recordAuctionOutcome',
        tags,
        summary: 'Report a sale (the marketplace): Active → ClosedSold.',
        description:
          'Only an Active auction can be sold (else 409 AUCTION_NOT_ACTIVE). ' +
          'An auction whose endsAt passes with no sale reported is closed ClosedUnsold by the service.',
        params: AuctionParams,
        body: Type.Object({
          salePrice: Type.Number({ minimum: 0, maximum: LIMITS.maximumBid, description: 'At most two decimals.' }),
          soldAt: Type.Optional(Type.String({ format: 'date-time', description: 'Defaults to now.' })),
          buyerName: Type.Optional(Type.String({ maxLength: 100 })),
        }),
        response: {
          200: Answer('The auction, ClosedSold, with its images and history.', Auction),
          404: NO_SUCH_AUCTION,
          409: Refused('The auction is not Active (AUCTION_NOT_ACTIVE).'),
        },
      },
    },
    async (request) => face.reportSale(actorOf(request), request.params.auctionId, request.body),
  );

  app.patch(
    '/admin/auctions/:auctionId',
    {
      config: OPERATOR,
      validatorCompiler: bodyJudgedByOperation,
      schema: {
        operationId: 'amendAuction',
        tags,
        summary: "Change a Pending auction's type, or complete its record.",
        description:
          'Support resolves a Pending auction: change its auctionType (e.g. Charity → Lien) ' +
          'and/or supply what activation needs. It becomes Active when nothing holds it any more; ' +
          'otherwise it stays Pending with its remaining reasons. ' +
          'Only a Pending auction can change (else 409 AUCTION_NOT_PENDING): ' +
          "an Active auction's content is immutable.",
        params: AuctionParams,
        body: RecordPatch,
        response: {
          200: Answer('The auction as changed (Active, or still Pending), with its images and history.', Auction),
          404: NO_SUCH_AUCTION,
          409: Refused('The auction is not Pending (AUCTION_NOT_PENDING).'),
        },
      },
    },
    async (request) =>
      face.amendPending(actorOf(request), request.params.auctionId, request.body as Record<string, unknown>),
  );

  app.post(
    '/admin/auctions/:auctionId/cancel',
    {
      config: OPERATOR,
      schema: {
        operationId: 'adminCancelAuction',
        tags,
        summary: 'Cancel an open auction (support).',
        description: 'Pending or Active → Cancelled; otherwise 409 AUCTION_NOT_OPEN.',
        params: AuctionParams,
        body: Type.Optional(
          Type.Object({ reason: Type.Optional(Type.String({ maxLength: LIMITS.cancelReasonLength })) }),
        ),
        response: {
          200: Answer('The auction, Cancelled, with its images and history.', Auction),
          404: NO_SUCH_AUCTION,
          409: Refused('The auction is not open (AUCTION_NOT_OPEN): already Cancelled, ClosedSold or ClosedUnsold.'),
        },
      },
    },
    async (request) => face.cancelBySupport(actorOf(request), request.params.auctionId, request.body?.reason ?? null),
  );
};

// Admin routes of the auction face (scope `admin`: an operator's token): what support and the
// marketplace do to auctions, charity enrolment, and support notifications. Errors are
// problem+json, as everywhere outside /api/3.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { principalOf } from '../auth/guard.ts';
import type { Scope } from '../http/access.ts';
import { notFound, validationFailed } from '../errors.ts';
import { bodyJudgedByService } from './body-compiler.ts';
import type { Auctions } from './index.ts';
import { AUCTION_TYPES, LIMITS, type AuctionStatus } from './model.ts';
import type { NotificationKind } from './notifications.ts';
import { Auction, AuctionPage, AuctionStatus as StatusSchema, Notification } from './schemas.ts';
import { isOpaqueId } from '../ids.ts';
import { cursor } from './views.ts';

const ADMIN = { access: { scopes: ['admin'] as Scope[] } };
const tags = ['auction administration'];
const AuctionParams = Type.Object({ auctionId: Type.String({ maxLength: 100 }) });

const actorOf = (request: FastifyRequest) => {
  const principal = principalOf(request);
  return `${principal.kind}:${principal.clientId}`;
};

const RecordPatch = Type.Object(
  {
    auctionType: Type.Optional(Type.Union(AUCTION_TYPES.map((t) => Type.Literal(t)))),
    unitName: Type.Optional(Type.String()),
    unitWidth: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
    unitLength: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
    description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    categories: Type.Optional(Type.Array(Type.String())),
    tenantName: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    startsAt: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    endsAt: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    minimumBid: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
    imageUrls: Type.Optional(Type.Array(Type.String())),
  },
  { description: 'Any fields of the record (same rules as in POST /api/3/auctioninfo); unitId cannot change.' },
);

export const adminAuctionRoutes: FastifyPluginAsyncTypebox<{ face: Auctions }> = async (app, { face }) => {
  const { service, notifier } = face;

  app.get(
    '/admin/auctions',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'List auctions (support).',
        description: 'Newest first, filtered by facility, status and unit; paged by `limit` (1–500, default 100) and `cursor`.',
        querystring: Type.Object({
          facilityId: Type.Optional(Type.String({ format: 'uuid' })),
          status: Type.Optional(StatusSchema),
          unitId: Type.Optional(Type.String({ maxLength: LIMITS.unitIdLength })),
          limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
          cursor: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: { 200: AuctionPage },
      },
    },
    async (request) => {
      const { facilityId, status, unitId, limit, cursor: after } = request.query;
      return service.list({ facilityIds: facilityId ? [facilityId] : null, status: status as AuctionStatus | undefined, unitId, limit, cursor: after });
    },
  );

  app.get(
    '/admin/auctions/:auctionId',
    { config: ADMIN, schema: { tags, summary: 'Read one auction with its images and history.', params: AuctionParams, response: { 200: Auction } } },
    async (request) => service.getById(request.params.auctionId),
  );

  app.post(
    '/admin/auctions/:auctionId/outcome',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Report a sale (the marketplace): Active → ClosedSold.',
        description: 'Only an Active auction can be sold (else 409 AUCTION_NOT_ACTIVE). An auction whose endsAt passes with no sale reported is closed ClosedUnsold by the service.',
        params: AuctionParams,
        body: Type.Object({
          salePrice: Type.Number({ minimum: 0, maximum: LIMITS.maximumBid, description: 'At most two decimals.' }),
          soldAt: Type.Optional(Type.String({ format: 'date-time', description: 'Defaults to now.' })),
          buyerName: Type.Optional(Type.String({ maxLength: 100 })),
        }),
        response: { 200: Auction },
      },
    },
    async (request) => service.reportSale(actorOf(request), request.params.auctionId, request.body),
  );

  app.patch(
    '/admin/auctions/:auctionId',
    {
      config: ADMIN,
      validatorCompiler: bodyJudgedByService,
      schema: {
        tags,
        summary: "Change a Pending auction's type, or complete its record.",
        description:
          'Support resolves a Pending auction: change its auctionType (e.g. Charity → Lien) and/or supply what activation needs. It becomes Active when nothing holds it any more; otherwise it stays Pending with its remaining reasons. Only a Pending auction can change (else 409 AUCTION_NOT_PENDING): an Active auction\'s content is immutable.',
        params: AuctionParams,
        body: RecordPatch,
        response: { 200: Auction },
      },
    },
    async (request) => service.amendPending(actorOf(request), request.params.auctionId, request.body as Record<string, unknown>),
  );

  app.post(
    '/admin/auctions/:auctionId/cancel',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Cancel an open auction (support).',
        description: 'Pending or Active → Cancelled; otherwise 409 AUCTION_NOT_OPEN.',
        params: AuctionParams,
        body: Type.Optional(Type.Object({ reason: Type.Optional(Type.String({ maxLength: LIMITS.cancelReasonLength })) })),
        response: { 200: Auction },
      },
    },
    async (request) => service.cancelBySupport(actorOf(request), request.params.auctionId, request.body?.reason ?? null),
  );

  const Enrolment = Type.Object({
    facilityId: Type.String(),
    guid: Type.Union([Type.String(), Type.Null()]),
    charityEnrolled: Type.Boolean(),
    activated: Type.Array(Type.String(), { description: 'Pending charity auctions that became Active.' }),
    stillPending: Type.Array(Type.String(), { description: 'Pending charity auctions still held for another reason (INCOMPLETE).' }),
  });
  const FacilityParams = Type.Object({ facilityId: Type.String({ maxLength: 100 }) });

  app.post(
    '/admin/facilities/:facilityId/charity-enrolment',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Enrol a facility in the charity programme.',
        description: 'Its Pending charity auctions become Active (those that are also incomplete stay Pending, for that reason only). Idempotent.',
        params: FacilityParams,
        response: { 200: Enrolment },
      },
    },
    async (request) => service.setCharityEnrolment(actorOf(request), request.params.facilityId, true),
  );

  app.delete(
    '/admin/facilities/:facilityId/charity-enrolment',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Withdraw a facility from the charity programme.',
        description: 'Later charity auctions of the facility are held as Pending; its Active ones are not touched.',
        params: FacilityParams,
        response: { 200: Enrolment },
      },
    },
    async (request) => service.setCharityEnrolment(actorOf(request), request.params.facilityId, false),
  );

  app.get(
    '/admin/notifications',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'List support notifications.',
        description: 'Newest first. `state`: open (default), resolved or all. Kinds: AUCTION_PENDING, IMAGE_FETCH_FAILED, JOB_FAILED. Paged by `limit` (1–500, default 100) and `cursor`.',
        querystring: Type.Object({
          state: Type.Union([Type.Literal('open'), Type.Literal('resolved'), Type.Literal('all')], { default: 'open' }),
          kind: Type.Optional(Type.Union([Type.Literal('AUCTION_PENDING'), Type.Literal('IMAGE_FETCH_FAILED'), Type.Literal('JOB_FAILED')])),
          facilityId: Type.Optional(Type.String({ format: 'uuid' })),
          auctionId: Type.Optional(Type.String({ format: 'uuid' })),
          limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
          cursor: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: { 200: Type.Object({ notifications: Type.Array(Notification), hasMore: Type.Boolean(), nextCursor: Type.Union([Type.String(), Type.Null()]) }) },
      },
    },
    async (request) => {
      const { state, kind, facilityId, auctionId, limit, cursor: next } = request.query;
      const after = next ? cursor.decode(next) : undefined;
      if (after === null) throw validationFailed([{ path: 'cursor', message: 'is not a cursor this service issued' }]);
      const rows = await notifier.list({ state, kind: kind as NotificationKind | undefined, facilityId, auctionId, after, limit });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return { notifications: page, hasMore: rows.length > limit, nextCursor: rows.length > limit && last ? cursor.encode(last.createdAt, last.id) : null };
    },
  );

  app.post(
    '/admin/notifications/:notificationId/resolve',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Mark a support notification resolved.',
        description: 'Notifications of Pending auctions resolve themselves when the auction becomes Active or is cancelled.',
        params: Type.Object({ notificationId: Type.String({ maxLength: 100 }) }),
        body: Type.Optional(Type.Object({ resolution: Type.Optional(Type.String({ maxLength: 500 })) })),
        response: { 200: Notification },
      },
    },
    async (request) => {
      const id = request.params.notificationId;
      const resolved = isOpaqueId(id) ? await notifier.resolve(id, actorOf(request), request.body?.resolution ?? 'RESOLVED') : null;
      if (!resolved) throw notFound('The notification');
      return resolved;
    },
  );
};

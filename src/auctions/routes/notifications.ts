// /admin/notifications: support lists the notifications and resolves them (notifications.ts).
import { EntityId } from '../../http/schemas.ts';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OPERATOR } from '../../http/access.ts';
import { Nullable } from '../../http/schemas.ts';
import type { Services } from '../../services.ts';
import { Notification, adminTags as tags } from '../schemas.ts';
import { actorOf } from './request.ts';

const KINDS = ['AUCTION_PENDING', 'IMAGE_FETCH_FAILED', 'JOB_FAILED', 'WEBHOOK_DISABLED'] as const;

export const notificationRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const face = services.auctions;

  app.get(
    '/admin/notifications',
    {
      config: OPERATOR,
      schema: {
        tags,
        summary: 'List support notifications.',
        description:
          'Newest first. `state`: open (default), resolved or all. Kinds: AUCTION_PENDING, ' +
          'IMAGE_FETCH_FAILED, JOB_FAILED. Paged by `limit` (1–500, default 100) and `cursor`.',
        querystring: Type.Object({
          state: Type.Union([Type.Literal('open'), Type.Literal('resolved'), Type.Literal('all')], { default: 'open' }),
          kind: Type.Optional(Type.Union(KINDS.map((kind) => Type.Literal(kind)))),
          facilityId: Type.Optional(EntityId('Only this facility’s notifications.')),
          auctionId: Type.Optional(Type.String({ format: 'uuid' })),
          limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
          cursor: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: {
          200: Type.Object({
            notifications: Type.Array(Notification),
            hasMore: Type.Boolean(),
            nextCursor: Nullable(Type.String()),
          }),
        },
      },
    },
    async (request) => face.listNotifications(request.query),
  );

  app.post(
    '/admin/notifications/:notificationId/resolve',
    {
      config: OPERATOR,
      schema: {
        tags,
        summary: 'Mark a support notification resolved.',
        description:
          'Notifications of Pending auctions resolve themselves when the auction becomes Active or is cancelled.',
        params: Type.Object({ notificationId: Type.String({ maxLength: 100 }) }),
        body: Type.Optional(Type.Object({ resolution: Type.Optional(Type.String({ maxLength: 500 })) })),
        response: { 200: Notification },
      },
    },
    async (request) => {
      const resolution = request.body?.resolution ?? 'RESOLVED';
      return face.resolveNotification(request.params.notificationId, actorOf(request), resolution);
    },
  );
};

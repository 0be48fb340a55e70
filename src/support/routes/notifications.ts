// /admin/notifications: support lists the notifications and resolves them (notifications.ts), from
// the console or any operator tool.
import { EntityId, Answer, StringEnum } from '../../http/schemas.ts';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OPERATOR } from '../../http/access.ts';
import { actorOf } from '../../http/caller.ts';
import type { Support } from '../index.ts';
import { LIMITS, NOTIFICATION_KINDS } from '../rules.ts';
import { Notification, NotificationKind, NotificationPage, tags } from '../schemas.ts';
import { Refused } from '../../http/problem.ts';

export const notificationRoutes: FastifyPluginAsyncTypebox<{ face: Support }> = async (app, { face }) => {
  app.get(
    '/admin/notifications',
    {
      config: OPERATOR,
      schema: {
        operationId: 'listNotifications',
        tags,
        summary: 'List support notifications.',
        description:
          'Newest first (by when each opened). `state`: open (default), resolved or all. Kinds: ' +
          `${NOTIFICATION_KINDS.join(', ')}. Occurrences of one kind for one facility are grouped while open: ` +
          `one notification with their \`count\`, the latest occurrence (\`lastOccurredAt\`) and the first ` +
          `${LIMITS.notificationGroupItems} of them (\`items\`). \`auctionId\` finds every notification that ` +
          'covers the auction. Paged by `limit` (1–500, default 100) and `cursor`.',
        querystring: Type.Object({
          state: StringEnum(['open', 'resolved', 'all'] as const, { default: 'open' }),
          kind: Type.Optional(NotificationKind),
          facilityId: Type.Optional(EntityId('Only this facility’s notifications.')),
          auctionId: Type.Optional(
            Type.String({ format: 'uuid', description: 'Only notifications that cover this auction.' }),
          ),
          limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
          cursor: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: { 200: Answer('A page of notifications.', NotificationPage) },
      },
    },
    async (request) => face.list(request.query),
  );

  app.post(
    '/admin/notifications/:notificationId/resolve',
    {
      config: OPERATOR,
      schema: {
        operationId: 'resolveNotification',
        tags,
        summary: 'Mark a support notification resolved.',
        description:
          'Resolves the whole group. Notifications of Pending auctions resolve themselves when none of their ' +
          'auctions is still Pending (each became Active or was cancelled); a later occurrence opens a new one.',
        params: Type.Object({ notificationId: Type.String({ maxLength: 100 }) }),
        body: Type.Optional(Type.Object({ resolution: Type.Optional(Type.String({ maxLength: 500 })) })),
        response: {
          200: Answer('The notification, resolved.', Notification),
          404: Refused('No notification has that id (NOT_FOUND).'),
        },
      },
    },
    async (request) => {
      const resolution = request.body?.resolution ?? 'RESOLVED';
      return face.resolve(request.params.notificationId, actorOf(request), resolution);
    },
  );
};

// TypeBox schemas of the support room, for the OpenAPI document: the notification, its
// occurrences and the page of them (named: SupportNotification…).
import { Type } from '@fastify/type-provider-typebox';
import { EntityId, Nullable, StringEnum } from '../http/schemas.ts';
import { LIMITS, NOTIFICATION_KINDS } from './rules.ts';

/**
 * The tag the document lists the notification routes under: they were documented with the
 * auction administration before the room existed, and the document stays as it was.
 */
export const tags = ['auction administration'];

export const NotificationKind = StringEnum([...NOTIFICATION_KINDS], {
  description:
    'AUCTION_PENDING: an auction was held Pending. IMAGE_FETCH_FAILED: an image could not be retrieved after ' +
    'every retry. JOB_FAILED: a background job exhausted its retries. WEBHOOK_DISABLED: a webhook subscription ' +
    'failed for 3 days and was disabled.',
});

export const NotificationItem = Type.Object(
  {
    occurredAt: Type.String({ format: 'date-time' }),
    reason: Nullable(Type.String()),
    auctionId: Nullable(Type.String()),
    message: Type.String(),
    detail: Type.Record(Type.String(), Type.Unknown()),
    resolution: Type.Optional(
      Type.String({ description: 'AUCTION_PENDING: how this auction left Pending while its group stays open.' }),
    ),
  },
  { $id: 'SupportNotificationOccurrence', description: 'One occurrence of the group.' },
);

export const Notification = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    kind: NotificationKind,
    reason: Nullable(Type.String({ description: 'The first occurrence’s reason.' })),
    message: Type.String({ description: 'The first occurrence’s message, preceded by the count when there are more.' }),
    facilityId: Nullable(EntityId('The facility id.')),
    auctionId: Nullable(Type.String({ description: 'The first occurrence’s auction.' })),
    detail: Type.Record(Type.String(), Type.Unknown(), { description: 'The first occurrence’s detail.' }),
    count: Type.Integer({ minimum: 1, description: 'Occurrences grouped in this notification.' }),
    items: Type.Array(NotificationItem, {
      maxItems: LIMITS.notificationGroupItems,
      description: `The first ${LIMITS.notificationGroupItems} occurrences, oldest first (\`count\` counts them all).`,
    }),
    createdAt: Type.String({ format: 'date-time', description: 'When the group opened.' }),
    lastOccurredAt: Type.String({ format: 'date-time' }),
    resolvedAt: Nullable(Type.String({ format: 'date-time' })),
    resolvedBy: Nullable(Type.String()),
    resolution: Nullable(Type.String()),
    delivery: Type.Object({
      status: StringEnum(['disabled', 'pending', 'delivered', 'failed']),
      attempts: Type.Integer(),
      lastError: Nullable(Type.String()),
      deliveredAt: Nullable(Type.String({ format: 'date-time' })),
    }),
  },
  {
    description:
      'Occurrences of one kind for one facility (for WEBHOOK_DISABLED: one subscription; for JOB_FAILED without ' +
      'a facility: one job queue) are grouped while the notification is open.',
    $id: 'SupportNotification',
  },
);

export const NotificationPage = Type.Object(
  {
    notifications: Type.Array(Notification),
    hasMore: Type.Boolean(),
    nextCursor: Nullable(Type.String({ description: 'Pass as `cursor` for the next page.' })),
  },
  { $id: 'SupportNotificationPage' },
);

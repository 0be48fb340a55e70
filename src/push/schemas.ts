// The TypeBox schemas of the push face's routes.
import { Type } from '@fastify/type-provider-typebox';
import { Refused } from '../http/problem.ts';
import { EntityId, Nullable, StringEnum } from '../http/schemas.ts';
import { LIMITS, TOPICS } from './rules.ts';

export const TAGS = ['webhooks'];

// The refusals of these routes beyond those every route documents (http/access.ts stamps those).
export const SUBSCRIPTION_NOT_FOUND = Refused(
  'NOT_FOUND: no such subscription of the caller (another owner’s subscription is not found either).',
);
export const DELIVERY_NOT_FOUND = Refused('NOT_FOUND: no such subscription of the caller, or no such delivery of it.');
export const REPLAY_TOO_LARGE = Refused(
  'REPLAY_TOO_LARGE: the replay would take the subscription past the pending deliveries it may hold; nothing was queued.',
);
export const LIMIT_REACHED = Refused(
  `SUBSCRIPTION_LIMIT_REACHED: the account or partner already has ${LIMITS.subscriptionsPerOwner} subscriptions.`,
);

export const SubscriptionParams = Type.Object({ subscriptionId: EntityId('The subscription id.') });
export const DeliveryParams = Type.Object({
  subscriptionId: EntityId('The subscription id.'),
  deliveryId: Type.String({ description: 'The delivery id (its webhook-id).', maxLength: 64 }),
});

const Topics = Type.Array(StringEnum(TOPICS), {
  minItems: 1,
  maxItems: TOPICS.length,
  description:
    'gateway.events, command.status, facility.status and facility.drift for an account token; auction.status for an auction partner.',
});
const EventTypes = Nullable(
  Type.Array(Type.Integer({ minimum: 0, maximum: 32767 }), {
    maxItems: LIMITS.filterEntries,
    description: 'gateway.events only: these event types (GET /gatewayevents/types); null or absent: every type.',
  }),
);
const FacilityIds = Nullable(
  Type.Array(EntityId('A facility id.'), {
    maxItems: LIMITS.filterEntries,
    description: 'Only facts of these facilities (the token’s own); null or absent: all of them.',
  }),
);
const Url = Type.String({
  maxLength: LIMITS.urlLength,
  description:
    'http or https; its host must resolve to public addresses only (WEBHOOK_ALLOW_HOSTS exempts hosts), checked again at each delivery.',
});
const Description = Nullable(Type.String({ maxLength: LIMITS.descriptionLength }));

export const CreateSubscriptionBody = Type.Object(
  {
    url: Url,
    topics: Topics,
    eventTypes: Type.Optional(EventTypes),
    facilityIds: Type.Optional(FacilityIds),
    description: Type.Optional(Description),
  },
  {
    $id: 'CreateWebhookSubscriptionRequest',
    additionalProperties: false,
    examples: [
      {
        url: 'https://pms.example.com/hooks/gatehouse',
        topics: ['gateway.events', 'facility.status'],
        eventTypes: [18, 19],
        facilityIds: [12],
        description: 'Gate activity for the Northgate facility',
      },
    ],
  },
);

export const UpdateSubscriptionBody = Type.Object(
  {
    url: Type.Optional(Url),
    topics: Type.Optional(Topics),
    eventTypes: Type.Optional(EventTypes),
    facilityIds: Type.Optional(FacilityIds),
    description: Type.Optional(Description),
    status: Type.Optional(StringEnum(['enabled', 'disabled'] as const)),
  },
  { $id: 'UpdateWebhookSubscriptionRequest', additionalProperties: false, minProperties: 1 },
);

const Time = Nullable(Type.String({ format: 'date-time' }));

export const Subscription = Type.Object(
  {
    id: EntityId('The subscription id.'),
    url: Type.String(),
    topics: Type.Array(StringEnum(TOPICS)),
    eventTypes: Nullable(Type.Array(Type.Integer())),
    facilityIds: Nullable(Type.Array(Type.Integer())),
    description: Nullable(Type.String()),
    status: StringEnum(['enabled', 'disabled'] as const),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    health: Type.Object(
      {
        disabledReason: Nullable(
          Type.String({ description: 'owner (PATCH) or failing (3 days of failed deliveries).' }),
        ),
        failingSince: Time,
        lastError: Nullable(Type.String()),
        lastSuccessAt: Time,
        nextAttemptAt: Time,
      },
      { $id: 'WebhookSubscriptionHealth' },
    ),
  },
  { $id: 'WebhookSubscription', description: 'A webhook subscription and its health.' },
);

export const CreatedSubscription = Type.Intersect(
  [
    Subscription,
    Type.Object({ secret: Type.String({ description: 'The signing secret (whsec_…). Shown this once.' }) }),
  ],
  {
    $id: 'CreatedWebhookSubscription',
    description: 'A new subscription, with its signing secret.',
    examples: [
      {
        id: 7,
        url: 'https://pms.example.com/hooks/gatehouse',
        topics: ['gateway.events', 'facility.status'],
        eventTypes: [18, 19],
        facilityIds: [12],
        description: 'Gate activity for the Northgate facility',
        status: 'enabled',
        createdAt: '2026-03-01T16:20:00.000Z',
        updatedAt: '2026-03-01T16:20:00.000Z',
        health: {
          disabledReason: null,
          failingSince: null,
          lastError: null,
          lastSuccessAt: null,
          nextAttemptAt: '2026-03-01T16:20:00.000Z',
        },
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw+8Vp2UJ6Kd4=',
      },
    ],
  },
);

export const AdminSubscription = Type.Intersect(
  [
    Subscription,
    Type.Object({
      owner: Type.Union([
        Type.Object({ accountId: EntityId('The owning account.') }),
        Type.Object({ applicationId: Type.String({ description: 'The owning auction partner’s application.' }) }),
      ]),
    }),
  ],
  { $id: 'AdminWebhookSubscription', description: 'A subscription, its health and its owner.' },
);

export const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
  after: Type.Optional(EntityId('The last id of the previous page.')),
});

export const Delivery = Type.Object(
  {
    id: Type.String({ description: 'The webhook-id.' }),
    type: Type.String({ description: `The message type: a topic (${TOPICS.join(', ')}) or ping (a test).` }),
    status: StringEnum(['pending', 'delivered', 'failed'] as const),
    attempts: Type.Integer(),
    createdAt: Type.String({ format: 'date-time' }),
    lastAttemptAt: Time,
    responseStatus: Nullable(Type.Integer()),
    lastError: Nullable(Type.String()),
    nextAttemptAt: Time,
    deliveredAt: Time,
    eventCount: Type.Optional(Type.Integer()),
  },
  { $id: 'WebhookDelivery', description: 'A delivery of one message to a subscription’s URL, and its attempts.' },
);

export const DeliveryQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  before: Type.Optional(Type.Integer({ minimum: 1, description: 'nextBefore of the previous page.' })),
});

export const DeliveryPage = Type.Object(
  {
    deliveries: Type.Array(Delivery),
    nextBefore: Nullable(Type.Integer({ description: 'Pass as before for the next page; null on the last page.' })),
  },
  {
    $id: 'WebhookDeliveryPage',
    description: 'A page of the delivery log, newest first.',
    examples: [
      {
        deliveries: [
          {
            id: '5b0c7d2e-8f1a-4c3b-9d6e-2a4f6b8c0e1d',
            type: 'gateway.events',
            status: 'delivered',
            attempts: 1,
            createdAt: '2026-03-01T16:15:04.000Z',
            lastAttemptAt: '2026-03-01T16:15:04.210Z',
            responseStatus: 200,
            lastError: null,
            nextAttemptAt: null,
            deliveredAt: '2026-03-01T16:15:04.210Z',
            eventCount: 2,
          },
          {
            id: '9e3f1a6b-2c4d-4e8f-a1b3-c5d7e9f0a2b4',
            type: 'facility.status',
            status: 'pending',
            attempts: 2,
            createdAt: '2026-03-01T16:10:00.000Z',
            lastAttemptAt: '2026-03-01T16:10:30.450Z',
            responseStatus: 503,
            lastError: 'HTTP 503',
            nextAttemptAt: '2026-03-01T16:15:30.000Z',
            deliveredAt: null,
          },
        ],
        nextBefore: 1041,
      },
    ],
  },
);

export const ReplayBody = Type.Object(
  { since: Type.String({ format: 'date-time', description: 'Within the event retention window.' }) },
  { additionalProperties: false },
);

export const RotatedSecret = Type.Object(
  {
    id: EntityId('The subscription id.'),
    secret: Type.String({ description: 'The new signing secret (whsec_…). Shown this once.' }),
    previousSecretExpiresAt: Type.String({
      format: 'date-time',
      description: 'Until then deliveries are signed with both the new and the previous secret.',
    }),
  },
  { $id: 'RotatedWebhookSecret' },
);

export const TestDeliveryOutcome = Type.Object(
  {
    deliveryId: Type.String({ description: 'The webhook-id of the ping delivery.' }),
    delivered: Type.Boolean(),
    responseStatus: Nullable(Type.Integer({ description: 'The receiver’s HTTP status; null when none came.' })),
    error: Nullable(Type.String()),
  },
  { $id: 'WebhookTestResult' },
);

export const ReplayOutcome = Type.Object(
  {
    since: Type.String({ format: 'date-time' }),
    facts: Type.Integer({
      description:
        'The facts of the other topics since then, queued again as new deliveries (within the pending deliveries a subscription may hold: WEBHOOK_PENDING_PER_SUBSCRIPTION, 10,000 by default).',
    }),
    events: Type.Boolean({
      description: 'true when the subscription has gateway.events: its events since then are sent again.',
    }),
    replaced: Type.Integer({
      description:
        'Deliveries of the previous replay not yet delivered, replaced by this one (one replay per subscription at a time).',
    }),
  },
  { $id: 'WebhookReplay' },
);

// The TypeBox schemas of the push face's routes.
import { Type } from '@fastify/type-provider-typebox';
import { EntityId, Nullable, StringEnum } from '../http/schemas.ts';
import { LIMITS, TOPICS } from './rules.ts';

export const TAGS = ['webhooks'];

export const SubscriptionParams = Type.Object({ subscriptionId: EntityId('The subscription id.') });
export const DeliveryParams = Type.Object({
  subscriptionId: EntityId('The subscription id.'),
  deliveryId: Type.String({ description: 'The delivery id (its webhook-id).', maxLength: 64 }),
});

const Topics = Type.Array(StringEnum(TOPICS), {
  minItems: 1,
  maxItems: TOPICS.length,
  description:
    'gateway.events, command.status and facility.status for an account token; auction.status for an auction partner.',
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
    'http or https; its host must resolve to public addresses only (OUTBOUND_ALLOW_HOSTS exempts hosts), checked again at each delivery.',
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
  { additionalProperties: false },
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
  { additionalProperties: false, minProperties: 1 },
);

const Time = Nullable(Type.String({ format: 'date-time' }));

export const Subscription = Type.Object({
  id: EntityId('The subscription id.'),
  url: Type.String(),
  topics: Type.Array(Type.String()),
  eventTypes: Nullable(Type.Array(Type.Integer())),
  facilityIds: Nullable(Type.Array(Type.Integer())),
  description: Nullable(Type.String()),
  status: StringEnum(['enabled', 'disabled'] as const),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  health: Type.Object({
    disabledReason: Nullable(Type.String({ description: 'owner (PATCH) or failing (3 days of failed deliveries).' })),
    failingSince: Time,
    lastError: Nullable(Type.String()),
    lastSuccessAt: Time,
    nextAttemptAt: Time,
  }),
});

export const CreatedSubscription = Type.Intersect([
  Subscription,
  Type.Object({ secret: Type.String({ description: 'The signing secret (whsec_…). Shown this once.' }) }),
]);

export const AdminSubscription = Type.Intersect([
  Subscription,
  Type.Object({
    owner: Type.Union([
      Type.Object({ accountId: EntityId('The owning account.') }),
      Type.Object({ applicationId: Type.String({ description: 'The owning auction partner’s application.' }) }),
    ]),
  }),
]);

export const ListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
  after: Type.Optional(EntityId('The last id of the previous page.')),
});

export const Delivery = Type.Object({
  id: Type.String({ description: 'The webhook-id.' }),
  type: Type.String(),
  status: StringEnum(['pending', 'delivered', 'failed'] as const),
  attempts: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  lastAttemptAt: Time,
  responseStatus: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  nextAttemptAt: Time,
  deliveredAt: Time,
  eventCount: Type.Optional(Type.Integer()),
});

export const DeliveryQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  before: Type.Optional(Type.Integer({ minimum: 1, description: 'nextBefore of the previous page.' })),
});

export const DeliveryPage = Type.Object({
  deliveries: Type.Array(Delivery),
  nextBefore: Nullable(Type.Integer()),
});

export const ReplayBody = Type.Object(
  { since: Type.String({ format: 'date-time', description: 'Within the event retention window.' }) },
  { additionalProperties: false },
);

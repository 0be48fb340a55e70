// TypeBox schemas of the drift face: the controller's digest and the items of differing buckets
// (POST /gateway/v1/digest, …/digest/items), their answers, and a drift as the PMS reads it.
import { Type } from '@fastify/type-provider-typebox';
import { EntityId, Nullable, StringEnum } from '../http/schemas.ts';
import { DIGEST_BUCKETS, DRIFT_KINDS } from './rules.ts';

export const DRIFT_TAGS = ['access control: drift'];
export const DIGEST_TAGS = ['gateway'];

/** The most items of one kind an items report may carry (a 10,000-item facility fits whole). */
export const MAX_REPORTED_ITEMS = 20_000;
/** The items report's body limit: MAX_REPORTED_ITEMS of each kind at ~100 bytes. */
export const MAX_ITEMS_BODY_BYTES = 4 * 1024 * 1024;

const BucketHash = Type.String({
  pattern: '^[0-9a-f]{16}$',
  description: 'The XOR of the bucket’s item hashes, 16 lower-case hex digits (0000000000000000 when empty).',
});
const Bucket = Type.Integer({ minimum: 0, maximum: DIGEST_BUCKETS - 1, description: `0–${DIGEST_BUCKETS - 1}.` });
const ItemHash = Type.String({ pattern: '^[0-9a-f]{16}$', description: 'The item’s hash, 16 lower-case hex digits.' });
const AppliedSequence = Type.Integer({
  minimum: 0,
  format: 'int64',
  description: 'The last command sequence the controller applied: the digest is of its state after it.',
});
const facilityId = Type.Optional(EntityId("Optional; when given it must be the token's own facility (else 404)."));

export const KindDigest = Type.Object(
  {
    count: Type.Integer({ minimum: 0, description: 'How many items of the kind the controller holds.' }),
    buckets: Type.Array(BucketHash, {
      minItems: DIGEST_BUCKETS,
      maxItems: DIGEST_BUCKETS,
      description: `Exactly ${DIGEST_BUCKETS}: bucket b holds the items whose id mod ${DIGEST_BUCKETS} is b.`,
    }),
  },
  { $id: 'KindDigest', additionalProperties: false },
);

export const DigestBody = Type.Object(
  { appliedSequence: AppliedSequence, units: KindDigest, visitors: KindDigest, facilityId },
  { $id: 'Digest', additionalProperties: false },
);

const BucketList = Type.Array(Bucket, { maxItems: DIGEST_BUCKETS, uniqueItems: true });
const Buckets = Type.Object({ units: BucketList, visitors: BucketList }, { additionalProperties: false });

export const DigestAnswer = Type.Object(
  {
    status: StringEnum(['in-sync', 'differs'] as const, {
      description: 'in-sync: the controller holds what the PMS asked for. differs: send the items of `buckets`.',
    }),
    buckets: Type.Optional(Buckets),
    nextDigestSeconds: Type.Integer({
      description: 'Send the next digest after this long (or after applying commands).',
    }),
  },
  { $id: 'DigestAnswer' },
);

const UnitReport = Type.Object(
  {
    id: EntityId('The unit id.'),
    hash: ItemHash,
    unitNumber: Type.String({ maxLength: 100 }),
    status: Type.String({ maxLength: 20 }),
  },
  { additionalProperties: false },
);
const VisitorReport = Type.Object(
  {
    id: EntityId('The visitor id.'),
    hash: ItemHash,
    unitId: Nullable(EntityId('The unit id, or null.')),
    isEnabled: Type.Boolean(),
    timeGroupId: Type.Integer({ minimum: 1, format: 'int64' }),
    accessProfileId: Type.Integer({ minimum: 1, format: 'int64' }),
  },
  { additionalProperties: false, description: 'A visitor as the controller holds it, but never its gate code.' },
);

export const DigestItemsBody = Type.Object(
  {
    appliedSequence: AppliedSequence,
    buckets: Type.Object(
      { units: BucketList, visitors: BucketList },
      { additionalProperties: false, description: 'The buckets the lists are complete for (those the digest named).' },
    ),
    units: Type.Array(UnitReport, { maxItems: MAX_REPORTED_ITEMS }),
    visitors: Type.Array(VisitorReport, { maxItems: MAX_REPORTED_ITEMS }),
    facilityId,
  },
  { $id: 'DigestItems', additionalProperties: false },
);

export const DriftItem = Type.Object(
  {
    kind: StringEnum(DRIFT_KINDS),
    id: Type.Integer({ format: 'int64', description: 'The unit or visitor id.' }),
    change: StringEnum(['missing', 'unexpected', 'altered'] as const, {
      description: 'missing at the controller · unexpected there (not in the PMS) · altered (see fields).',
    }),
    fields: Type.Array(Type.String(), {
      description: 'For altered: the fields that differ (accessCode when the code does — its value is never named).',
    }),
  },
  { $id: 'DriftItem' },
);

export const DigestItemsAnswer = Type.Object(
  {
    status: StringEnum(['in-sync', 'correcting'] as const, {
      description: 'correcting: the corrective commands are queued; apply them as any other.',
    }),
    driftId: Type.Optional(Type.String({ format: 'uuid' })),
    corrections: Type.Optional(
      Type.Integer({
        description:
          'How many corrective commands were queued now (0: the items were corrected less than a digest interval ago).',
      }),
    ),
    items: Type.Optional(Type.Array(DriftItem)),
  },
  { $id: 'DigestItemsAnswer' },
);

export const Drift = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    status: StringEnum(['open', 'healed'] as const),
    foundAt: Type.String({ format: 'date-time' }),
    healedAt: Nullable(Type.String({ format: 'date-time' })),
    corrections: Type.Integer({ description: 'Corrective commands queued for it.' }),
    items: Type.Array(DriftItem),
  },
  { $id: 'Drift' },
);

export const DriftParams = Type.Object({ facilityId: EntityId('The facility id.') });
export const DriftQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: '1–100, default 20.' })),
});

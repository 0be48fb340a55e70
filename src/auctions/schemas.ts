// TypeBox schemas of the auction face, for the OpenAPI document. The request bodies of
// /api/3 are validated by validation.ts (every fault with its path and code, cross-field rules
// included); these schemas describe the same rules, with the limits taken from LIMITS.
import { Type } from '@fastify/type-provider-typebox';
import { EntityId, Nullable, StringEnum } from '../http/schemas.ts';
import {
  ACTIVATION_FIELDS,
  AUCTION_STATUSES,
  AUCTION_TYPES,
  CATEGORIES,
  LIMITS,
  OUTCOMES,
  PENDING_REASONS,
} from './model.ts';

// Values the examples share: one facility (guid SUNRISE-012) of the partner AcmePMS, two of its units.
const EXAMPLE = {
  guid: 'SUNRISE-012',
  clientType: 'AcmePMS',
  lienAuctionId: '3f6b2c1e-8a4d-4e7b-9c2a-5d1e0f7a9b31',
  charityAuctionId: '9a0d4e27-6c15-4b8e-a3f2-71c9e5b08d44',
  incompleteAuctionId: 'c4e81f02-5b7a-4d39-8e16-0a2f9d3b6c57',
  startsAt: '2026-12-01T09:00:00-07:00',
  endsAt: '2026-12-08T17:00:00-07:00',
} as const;

const EXAMPLE_LIEN_RECORD = {
  unitId: 'A-101',
  unitName: 'A-101 (10x15)',
  auctionType: 'Lien',
  unitWidth: 10,
  unitLength: 15,
  description: 'Sofa, boxes, two bikes',
  categories: ['Household Furniture', 'Boxes'],
  tenantName: 'J. Doe',
  startsAt: EXAMPLE.startsAt,
  endsAt: EXAMPLE.endsAt,
  minimumBid: 25,
  imageUrls: ['https://pms.example.com/units/A-101/1.jpg'],
};

const EXAMPLE_LIEN_AUCTION = {
  auctionId: EXAMPLE.lienAuctionId,
  guid: EXAMPLE.guid,
  facilityId: 12,
  unitId: 'A-101',
  unitName: 'A-101 (10x15)',
  auctionType: 'Lien',
  status: 'Active',
  pendingReasons: [],
  record: EXAMPLE_LIEN_RECORD,
  startsAt: '2026-12-01T16:00:00.000Z',
  endsAt: '2026-12-09T00:00:00.000Z',
  createdAt: '2026-11-26T15:02:11.482Z',
  updatedAt: '2026-11-26T15:02:11.482Z',
  cancelledAt: null,
  recreateAfter: null,
  closedAt: null,
  sale: null,
};

/** An error answer a route outside /api/3 documents itself (problem+json, with what it means there). */

/** The OpenAPI tags of the face's routes. */
export const importTags = ['auction import'];
export const adminTags = ['auction administration'];

export const AuctionStatus = StringEnum(AUCTION_STATUSES);

export const UnitRecord = Type.Object(
  {
    unitId: Type.String({
      minLength: 1,
      maxLength: LIMITS.unitIdLength,
      description: 'The unit at the facility; one record per unit.',
    }),
    unitName: Type.String({ minLength: 1, maxLength: LIMITS.unitNameLength }),
    guid: Type.Optional(
      Type.String({
        description:
          "Not needed; when present it must be the call's guid (else 400 OTHER_FACILITY): one call, one facility.",
      }),
    ),
    auctionType: Type.Optional(StringEnum(AUCTION_TYPES)),
    unitWidth: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 10000, description: 'Feet.' })),
    unitLength: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 10000, description: 'Feet.' })),
    description: Type.Optional(Type.String({ maxLength: LIMITS.descriptionLength })),
    categories: Type.Optional(Type.Array(StringEnum(CATEGORIES), { maxItems: CATEGORIES.length, uniqueItems: true })),
    tenantName: Type.Optional(Type.String({ maxLength: LIMITS.tenantNameLength })),
    startsAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'ISO 8601 with an offset, e.g. 2026-12-01T09:00:00-07:00; before endsAt.',
      }),
    ),
    endsAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'ISO 8601 with an offset; after startsAt, and in the future.' }),
    ),
    minimumBid: Type.Optional(
      Type.Number({ minimum: 0, maximum: LIMITS.maximumBid, description: 'At most two decimals.' }),
    ),
    imageUrls: Type.Optional(
      Type.Array(Type.String({ format: 'uri', maxLength: LIMITS.imageUrlLength }), {
        maxItems: LIMITS.imageUrlsPerRecord,
        description:
          `Absolute http/https URLs, at most ${LIMITS.imageUrlsPerRecord}; no credentials; ` +
          `not an address literal that is loopback, private, link-local or reserved.`,
      }),
    ),
  },
  {
    description:
      'One auctionable unit. Optional fields may also be null. Unknown fields are ignored. ' +
      'Activation needs description, startsAt, endsAt and at least one image URL; ' +
      'a record without them is held as Pending (INCOMPLETE).',
    $id: 'AuctionableUnit',
  },
);

/** A stored record as it reads back: defaults applied, absent optional fields null. */
export const RecordView = Type.Object(
  {
    unitId: Type.String(),
    unitName: Type.String(),
    auctionType: StringEnum(AUCTION_TYPES),
    unitWidth: Nullable(Type.Number()),
    unitLength: Nullable(Type.Number()),
    description: Nullable(Type.String()),
    categories: Type.Array(Type.String()),
    tenantName: Nullable(Type.String()),
    startsAt: Nullable(Type.String({ description: 'As sent (with its offset).' })),
    endsAt: Nullable(Type.String({ description: 'As sent (with its offset).' })),
    minimumBid: Nullable(Type.Number()),
    imageUrls: Type.Array(Type.String()),
  },
  { $id: 'AuctionRecord' },
);

export const CreateBody = Type.Object(
  {
    guid: Type.String({
      minLength: 1,
      maxLength: LIMITS.guidLength,
      description: 'A facility assigned to the calling partner (else 404).',
    }),
    clientType: Type.String({
      minLength: 1,
      maxLength: LIMITS.clientTypeLength,
      description: "The partner's assigned client type (else 403).",
    }),
    auctionableUnitInfo: Type.Array(UnitRecord, {
      maxItems: LIMITS.recordsPerCall,
      description: `The facility's full list, 0–${LIMITS.recordsPerCall} records, no unitId twice.`,
    }),
  },
  {
    examples: [
      {
        guid: EXAMPLE.guid,
        clientType: EXAMPLE.clientType,
        auctionableUnitInfo: [
          EXAMPLE_LIEN_RECORD,
          {
            unitId: 'B-204',
            unitName: 'B-204 (5x10)',
            auctionType: 'Charity',
            description: 'Boxes of books and a bookcase',
            categories: ['Books', 'Boxes'],
            startsAt: EXAMPLE.startsAt,
            endsAt: EXAMPLE.endsAt,
            imageUrls: ['https://pms.example.com/units/B-204/1.jpg'],
          },
          // Held Pending as INCOMPLETE until support completes it: no description, no image.
          { unitId: 'C-310', unitName: 'C-310 (10x10)', startsAt: EXAMPLE.startsAt, endsAt: EXAMPLE.endsAt },
        ],
      },
    ],
  },
);

// Named once: the import result and the auction's view say it in the same words.
const MissingFields = Type.Array(StringEnum(ACTIVATION_FIELDS), {
  description:
    'Only when the auction is held Pending as INCOMPLETE: which of the fields activation needs the record lacks ' +
    '(description, startsAt, endsAt; imageUrls: at least one image URL).',
});

export const UnitResult = Type.Object(
  {
    unitId: Type.String(),
    auctionId: Nullable(Type.String({ format: 'uuid' })),
    outcome: StringEnum(OUTCOMES),
    status: AuctionStatus,
    reason: Type.Optional(
      Type.String({ description: `Pending: ${PENDING_REASONS.join(' or ')}; removed: REMOVED_FROM_LIST.` }),
    ),
    missingFields: Type.Optional(MissingFields),
    retryAfter: Type.Optional(
      Type.String({ format: 'date-time', description: 'Deferred: when a full list will create the auction.' }),
    ),
  },
  { $id: 'UnitImportResult' },
);

export const CreateData = Type.Object(
  {
    guid: Type.String(),
    dryRun: Type.Boolean(),
    results: Type.Array(UnitResult),
    summary: Type.Object({
      created: Type.Integer(),
      pending: Type.Integer(),
      unchanged: Type.Integer(),
      deferred: Type.Integer(),
      removed: Type.Integer(),
    }),
  },
  {
    $id: 'AuctionImportResult',
    examples: [
      {
        guid: EXAMPLE.guid,
        dryRun: false,
        results: [
          { unitId: 'A-101', auctionId: EXAMPLE.lienAuctionId, outcome: 'created', status: 'Active' },
          {
            unitId: 'B-204',
            auctionId: EXAMPLE.charityAuctionId,
            outcome: 'pending',
            status: 'Pending',
            reason: 'CHARITY_NOT_ENROLLED',
          },
          {
            unitId: 'C-310',
            auctionId: EXAMPLE.incompleteAuctionId,
            outcome: 'pending',
            status: 'Pending',
            reason: 'INCOMPLETE',
            missingFields: ['description', 'imageUrls'],
          },
        ],
        summary: { created: 1, pending: 2, unchanged: 0, deferred: 0, removed: 0 },
      },
    ],
  },
);

export const CancelBody = Type.Object(
  {
    guid: Type.String({ minLength: 1, maxLength: LIMITS.guidLength }),
    clientType: Type.String({ minLength: 1, maxLength: LIMITS.clientTypeLength }),
    cancelAuctionIds: Type.Array(
      Type.Object({
        unitId: Type.String({ minLength: 1, maxLength: LIMITS.unitIdLength }),
        reason: Type.Optional(
          Type.String({ maxLength: LIMITS.cancelReasonLength, description: 'Kept in the history.' }),
        ),
      }),
      { minItems: 1, maxItems: 1, description: 'Exactly one record.' },
    ),
  },
  {
    examples: [
      {
        guid: EXAMPLE.guid,
        clientType: EXAMPLE.clientType,
        cancelAuctionIds: [{ unitId: 'A-101', reason: 'The tenant paid the balance.' }],
      },
    ],
  },
);

export const CancelData = Type.Object(
  {
    auctionId: Type.String({ format: 'uuid' }),
    unitId: Type.String(),
    status: AuctionStatus,
    cancelledAt: Nullable(Type.String({ format: 'date-time' })),
    recreateAfter: Nullable(
      Type.String({ format: 'date-time', description: 'When a full list may create an auction for the unit again.' }),
    ),
    closedAt: Type.Optional(
      Nullable(Type.String({ format: 'date-time', description: 'ALREADY_CLOSED only: when it closed.' })),
    ),
  },
  {
    $id: 'AuctionCancellation',
    examples: [
      {
        auctionId: EXAMPLE.lienAuctionId,
        unitId: 'A-101',
        status: 'Cancelled',
        cancelledAt: '2026-11-27T10:15:42.907Z',
        recreateAfter: '2026-11-27T10:45:42.907Z',
      },
    ],
  },
);

export const Image = Type.Object(
  {
    position: Type.Integer(),
    sourceUrl: Type.String(),
    status: StringEnum(['pending', 'stored', 'failed']),
    error: Nullable(Type.String()),
    attempts: Type.Integer(),
    url: Nullable(Type.String({ description: 'Where the stored image is served: /media/<sha256>.<ext>.' })),
    contentType: Nullable(Type.String()),
    bytes: Nullable(Type.Integer()),
    width: Nullable(Type.Integer()),
    height: Nullable(Type.Integer()),
    sha256: Nullable(Type.String()),
  },
  { $id: 'AuctionImage' },
);

export const HistoryEntry = Type.Object(
  {
    at: Type.String({ format: 'date-time' }),
    from: Nullable(AuctionStatus),
    to: AuctionStatus,
    trigger: Type.String(),
    actor: Type.String({ description: 'partner:<clientId>, operator:<clientId> or system:<job>.' }),
    reason: Type.String(),
    note: Nullable(Type.String()),
  },
  { $id: 'AuctionHistoryEntry' },
);

export const Auction = Type.Object(
  {
    auctionId: Type.String({ format: 'uuid' }),
    guid: Nullable(Type.String()),
    facilityId: EntityId('The facility id.'),
    unitId: Type.String(),
    unitName: Type.String(),
    auctionType: StringEnum(AUCTION_TYPES),
    status: AuctionStatus,
    pendingReasons: Type.Array(StringEnum(PENDING_REASONS)),
    missingFields: Type.Optional(MissingFields),
    record: RecordView,
    startsAt: Nullable(Type.String({ format: 'date-time' })),
    endsAt: Nullable(Type.String({ format: 'date-time' })),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    cancelledAt: Nullable(Type.String({ format: 'date-time' })),
    recreateAfter: Nullable(Type.String({ format: 'date-time' })),
    closedAt: Nullable(Type.String({ format: 'date-time' })),
    sale: Nullable(
      Type.Object({
        salePrice: Type.Number(),
        soldAt: Type.String({ format: 'date-time' }),
        buyerName: Nullable(Type.String()),
      }),
    ),
    images: Type.Optional(Type.Array(Image, { description: 'When one auction is read.' })),
    history: Type.Optional(Type.Array(HistoryEntry, { description: 'When one auction is read; oldest first.' })),
  },
  { $id: 'Auction' },
);

export const AuctionPage = Type.Object(
  {
    auctions: Type.Array(Auction, {
      description: 'Newest first; without images and history (read one auction for those).',
    }),
    hasMore: Type.Boolean(),
    nextCursor: Nullable(Type.String({ description: 'Pass as `cursor` for the next page.' })),
  },
  { $id: 'AuctionPage', examples: [{ auctions: [EXAMPLE_LIEN_AUCTION], hasMore: false, nextCursor: null }] },
);

export const ListQuery = Type.Object({
  guid: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: LIMITS.guidLength,
      description: "One of the partner's facilities; all of them when omitted.",
    }),
  ),
  status: Type.Optional(AuctionStatus),
  unitId: Type.Optional(Type.String({ minLength: 1, maxLength: LIMITS.unitIdLength })),
  limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
});

/** A facility's charity enrolment, as changed. */
export const CharityEnrolment = Type.Object(
  {
    facilityId: EntityId('The facility id.'),
    guid: Nullable(Type.String()),
    charityEnrolled: Type.Boolean(),
    activated: Type.Array(Type.String(), { description: 'Pending charity auctions that became Active.' }),
    stillPending: Type.Array(Type.String(), {
      description: 'Pending charity auctions still held for another reason (INCOMPLETE).',
    }),
  },
  { $id: 'CharityEnrolment' },
);

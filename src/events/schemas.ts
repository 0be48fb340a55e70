// TypeBox schemas of the access-event routes: they validate requests, serialize responses and write
// the OpenAPI documents. Limits are quoted from limits.ts, types from the catalogue.
import { Type } from '@fastify/type-provider-typebox';
import { EXPECTED, EntityId, StringEnum } from '../http/schemas.ts';
import { EVENT_TYPE_LIST, EVENT_TYPE_NUMBERS } from './catalogue.ts';
import { GATEWAY_CONTROLLER_CATEGORY } from './combined.ts';
import { CSV_HEADER } from './csv.ts';
import {
  DEFAULT_PAGE_SIZE,
  EXACT_TOTAL_CAP,
  MAX_COMBINED_RESULTS,
  MAX_FILTER_VALUES,
  MAX_PAGE_NUMBER,
  MAX_PAGE_SIZE,
} from './limits.ts';

// Nullable fields as type arrays: OpenAPI 3.1 style, and fast for the response serializer
// (a union would make it test each value against each branch).
const NullableString = (description?: string) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], ...(description ? { description } : {}) });
const NullableId = (description: string) =>
  Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 1, format: 'int64', description });

export const GatewayEventSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'The event id assigned by the service.' }),
    accountId: EntityId('The account id.'),
    facilityId: EntityId('The facility id.'),
    facilityName: Type.String({ description: 'The facility name when the event was received.' }),
    eventType: Type.Integer({ description: `Event type number: ${EVENT_TYPE_LIST}.` }),
    eventTypeName: Type.String(),
    eventCategory: Type.String({
      description: 'System, Facility, Alarm, Device, Access, Access Denied, Unit Door or Local Administration.',
    }),
    occurredAt: Type.String({
      format: 'date-time',
      description:
        'UTC, with milliseconds. The time received when the device clock was more than 5 minutes ahead (data.reportedOccurredAt then keeps the reported time).',
    }),
    occurredAtLocal: Type.String({
      description: "The same instant in the facility's time zone, with its offset: 2026-03-01T09:15:02.123-07:00.",
    }),
    receivedAt: Type.String({ format: 'date-time', description: 'When the service received the event (UTC).' }),
    deviceId: NullableString(),
    deviceName: NullableString(),
    unitId: NullableId('The unit id the controller reported.'),
    unitNumber: NullableString(
      'The number of that unit at the facility when the event was received; null when the id names no unit there.',
    ),
    visitorId: NullableId('The visitor id the controller reported.'),
    visitorName: NullableString(
      '"First Last" of that visitor at the facility when the event was received; null when the id names no visitor there.',
    ),
    codeEntered: NullableString(
      'The code typed at the keypad, masked: "****" and its last two characters (codes shorter than 4: "****"). Never stored in clear.',
    ),
    details: NullableString(),
    data: Type.Unsafe<Record<string, unknown> | null>({
      type: ['object', 'null'],
      additionalProperties: true,
      description: 'Further data the controller reported.',
    }),
  },
  { $id: 'GatewayEvent', description: 'An event reported by a facility gateway controller.' },
);

const listParam = (description: string) =>
  Type.Optional(
    Type.Array(Type.String({ maxLength: 4000 }), {
      maxItems: MAX_FILTER_VALUES,
      description: `${description} Comma-separated or repeated; at most ${MAX_FILTER_VALUES} values.`,
    }),
  );

const dateParam = (description: string) =>
  Type.Optional(
    Type.String({
      maxLength: 64,
      description: `${description} ISO 8601 date-time with an offset (2026-03-01T00:00:00Z), or a date (2026-03-01) meaning midnight UTC.`,
    }),
  );

const apiVersionParam = Type.Optional(
  Type.String({
    maxLength: 16,
    description: 'The API version (1.0, 2.0, 3.0); the header of the same name does the same.',
  }),
);

const filterParams = {
  eventTypes: listParam(`Only these event types (${EVENT_TYPE_NUMBERS.join(', ')}).`),
  unitIds: listParam(
    'Only events that name one of these units (unit ids, positive integers: the unitId the controller reported).',
  ),
  visitorIds: listParam(
    'Only events that name one of these visitors (visitor ids, positive integers: the visitorId the controller reported).',
  ),
  startDate: dateParam('Events that occurred at or after this instant.'),
  endDate: dateParam('Events that occurred before this instant (exclusive; must be after startDate).'),
  sort: Type.Optional(
    StringEnum(['desc', 'asc'] as const, { description: 'By occurredAt: desc (default, newest first) or asc.' }),
  ),
};

const pagingParams = {
  pageSize: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      description: `Events per page, 1–${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}.`,
    }),
  ),
  pageNumber: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_NUMBER,
      description:
        'The 1-based page, default 1 (ignored with a cursor). For long walks prefer the cursor: it costs the same at any depth.',
    }),
  ),
  cursor: Type.Optional(
    Type.String({
      maxLength: 512,
      description:
        'metadata.nextCursor of the previous page: continues after its last item. Send it with the same eventTypes, facilityIds, unitIds, visitorIds, startDate, endDate and sort (else 400). A walk returns every event exactly once, also while events arrive: it first reads the events committed when it began, then those that arrived meanwhile (late ones with an old occurredAt included), each part in the requested order.',
    }),
  ),
  'api-version': apiVersionParam,
};

const facilityIdsParam = listParam(
  "Only these facilities of the account (a facility that is not the account's matches nothing).",
);

export const FacilityEventsQuery = Type.Object({ ...filterParams, ...pagingParams });
export const AccountEventsQuery = Type.Object({ ...filterParams, facilityIds: facilityIdsParam, ...pagingParams });

// The live stream: the filters of the list routes, without paging or sort (it is in delivery order).
const { sort: _sort, ...streamFilterParams } = filterParams;
export const FacilityStreamQuery = Type.Object({ ...streamFilterParams, 'api-version': apiVersionParam });
export const AccountStreamQuery = Type.Object({
  ...streamFilterParams,
  facilityIds: facilityIdsParam,
  'api-version': apiVersionParam,
});
export const StreamHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({
      maxLength: 512,
      description:
        'The id of the last event received (an EventSource sends it when it reconnects): the stream continues ' +
        'exactly after it. A value that is not an event id of this stream, with these filters, is refused (400).',
    }),
  ),
});

// The answer example of the list routes (OpenAPI): a page of two events at facility 12, both of one
// visitor at the front gate's keypad.
const atFrontGateKeypad = {
  deviceId: 'kp-1',
  deviceName: 'Front gate keypad',
  unitId: 101,
  unitNumber: 'A-101',
  visitorId: 4821,
  visitorName: 'Maria Lopez',
  codeEntered: '****42',
};
const GATEWAY_EVENT_PAGE_EXAMPLE = {
  metadata: {
    pageSize: 100,
    pageNumber: 1,
    totalResults: 2,
    totalPages: 1,
    nextCursor: null,
    totalResultsExact: true,
  },
  items: [
    {
      id: '0195506c-3a1f-7b2e-9c4d-5e6f7a8b9c0d',
      accountId: 3,
      facilityId: 12,
      facilityName: 'Northgate Self Storage',
      eventType: 18,
      eventTypeName: 'Access Granted',
      eventCategory: 'Access',
      occurredAt: '2026-03-01T16:15:02.123Z',
      occurredAtLocal: '2026-03-01T09:15:02.123-07:00',
      receivedAt: '2026-03-01T16:15:03.410Z',
      ...atFrontGateKeypad,
      details: null,
      data: null,
    },
    {
      id: '0195506a-9e27-7d10-8a3b-1c2d3e4f5a6b',
      accountId: 3,
      facilityId: 12,
      facilityName: 'Northgate Self Storage',
      eventType: 19,
      eventTypeName: 'Invalid Access Time',
      eventCategory: 'Access Denied',
      occurredAt: '2026-03-01T13:42:10.500Z',
      occurredAtLocal: '2026-03-01T06:42:10.500-07:00',
      receivedAt: '2026-03-01T13:42:11.020Z',
      ...atFrontGateKeypad,
      details: 'Outside time group Business Hours',
      data: { timeGroupId: 2 },
    },
  ],
};

export const EventPage = Type.Object(
  {
    metadata: Type.Object({
      pageSize: Type.Integer(),
      pageNumber: Type.Integer(),
      totalResults: Type.Integer({
        description:
          'Events of the filter (for a cursor walk: in the walk so far). Counted exactly up to ' +
          `${EXACT_TOTAL_CAP.toLocaleString('en-US')}; beyond that it is the database planner's estimate (at least ` +
          `${(EXACT_TOTAL_CAP + 1).toLocaleString('en-US')}) and totalResultsExact is false, so that the total never costs ` +
          'more than the page.',
      }),
      totalPages: Type.Integer({
        description: 'ceil(totalResults / pageSize): an estimate too when totalResultsExact is false.',
      }),
      nextCursor: NullableString('Pass as cursor for the next page; null when the walk has returned every event.'),
      totalResultsExact: Type.Boolean({
        description: `true: totalResults is exact (at most ${EXACT_TOTAL_CAP.toLocaleString('en-US')}); false: it is an estimate.`,
      }),
    }),
    items: Type.Array(GatewayEventSchema),
  },
  { $id: 'GatewayEventPage', examples: [GATEWAY_EVENT_PAGE_EXAMPLE] },
);

export const EventTypeSchema = Type.Object(
  {
    eventType: Type.Integer(),
    name: Type.String(),
    description: Type.String(),
    category: Type.String(),
  },
  { $id: 'GatewayEventType', description: 'An event type of the catalogue.' },
);
export const EventTypeList = Type.Array(EventTypeSchema);

export const CSV_DESCRIPTION = `text/csv (RFC 4180, UTF-8, CRLF, header row), columns ${CSV_HEADER.join(',')}. Cells beginning with =, +, -, @, tab or carriage return are prefixed with an apostrophe (formula injection).`;

export const AccountParams = Type.Object({
  accountId: EntityId("The token's own account (any other: 404)."),
});
export const FacilityParams = Type.Object({
  facilityId: EntityId("A facility of the token's account (any other: 404)."),
});

// ---- legacy ----

const legacyPaging = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      description: `Events to return, 1–${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}.`,
    }),
  ),
  offset: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'Events to skip, default 0.' }),
  ),
};

export const V1FacilityQuery = Type.Object({ ...filterParams, ...legacyPaging, 'api-version': apiVersionParam });
export const V1AccountQuery = Type.Object({
  ...filterParams,
  facilityIds: listParam(
    "Only these facilities of the account (a facility that is not the account's matches nothing).",
  ),
  ...legacyPaging,
  'api-version': apiVersionParam,
});

export const V2FacilityQuery = Type.Object({
  minDate: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 253402300799,
      description: 'Unix seconds: events that occurred at or after it.',
    }),
  ),
  maxDate: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 253402300799,
      description: 'Unix seconds: events that occurred before it (exclusive).',
    }),
  ),
  eventTypes: listParam('Only these event types.'),
  ...legacyPaging,
  'api-version': apiVersionParam,
});

export const V2Page = Type.Object(
  {
    metadata: Type.Object({
      limit: Type.Integer(),
      offset: Type.Integer(),
      totalResults: Type.Integer(),
      totalPages: Type.Integer(),
      pageNumber: Type.Integer(),
    }),
    items: Type.Array(GatewayEventSchema),
  },
  { $id: 'GatewayEventPageV2', description: 'A page of version 2.0: by limit and offset.' },
);

// ---- combined events (SPEC §6.3) ----

const unixSeconds = (description: string) =>
  Type.Optional(Type.Integer({ minimum: 0, maximum: 253402300799, description }));

/** A repeated parameter of a device family this service does not have (edge-router and IoT device types). */
const otherFamilyList = (what: string) =>
  Type.Optional(
    Type.Array(Type.String({ maxLength: 4000 }), {
      maxItems: MAX_FILTER_VALUES,
      description: `Repeated: ${what} event types. Accepted so that existing integrations can send it; this service has no such devices, so these types match no event: a query that names types here and none in gtq answers no items (an empty list or page). With gtq, gtq alone decides the types returned.`,
    }),
  );

const singleId = (what: string) =>
  Type.Optional(
    Type.String({
      maxLength: 40,
      description: `A ${what} id (a positive integer): only events that name that ${what}. Empty (or absent): no filter. Anything else is a 400.`,
    }),
  );

const combinedApiVersion = Type.Optional(
  Type.String({
    maxLength: 16,
    description: 'The API version: 2.0 or 3.0 (the default); the header of the same name does the same.',
  }),
);

export const CombinedTypesQuery = Type.Object({ 'api-version': combinedApiVersion });

export const CombinedEventsQuery = Type.Object({
  gtq: Type.Optional(
    Type.Array(Type.String({ maxLength: 4000 }), {
      maxItems: MAX_FILTER_VALUES,
      description: `Repeated (comma-separated also works): gateway-controller event type numbers (${EVENT_TYPE_NUMBERS.join(', ')}; GET /combinedevents/types). None: every type, unless etq or itq name types (then none). A number that is no type (999) is a 400.`,
    }),
  ),
  etq: otherFamilyList('edge-router'),
  itq: otherFamilyList('IoT device (SmartLock)'),
  uq: singleId('unit'),
  vq: singleId('visitor'),
  minDate: unixSeconds(
    'Unix seconds: events that occurred at or after it (inclusive). Default: 12 hours before maxDate. After maxDate: 400.',
  ),
  maxDate: unixSeconds(
    'Unix seconds: events that occurred before it (exclusive, so consecutive windows neither miss nor repeat an event). Default: now.',
  ),
  hideMetadata: Type.Optional(
    Type.String({
      pattern: '^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])?$',
      [EXPECTED]: 'true or false (in any letter case)',
      description:
        'true: the answer is a plain JSON array of items (and nothing is counted). false or absent: {metadata, items}. Any letter case (True, as .NET writes it).',
    }),
  ),
  pageSize: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      description: `Items per page, 1–${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}.`,
    }),
  ),
  pageNumber: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_NUMBER,
      description: `The 1-based page, default 1. Only the newest ${MAX_COMBINED_RESULTS.toLocaleString('en-US')} events of the filter can be reached: a page past them is empty (narrow minDate/maxDate to reach older ones, or use /gatewayevents with a cursor).`,
    }),
  ),
  'api-version': combinedApiVersion,
});

export const CombinedEventSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'The event id assigned by the service (as on /gatewayevents).' }),
    facilityId: EntityId('The facility id.'),
    facilityName: Type.String({ description: 'The facility name when the event was received.' }),
    deviceId: NullableString('The device that reported the event, as the controller names it.'),
    deviceName: NullableString(),
    eventCategory: Type.Literal(GATEWAY_CONTROLLER_CATEGORY, {
      description: 'Always "Gateway Controller Event": this service has no edge-router or IoT devices.',
    }),
    eventType: Type.String({
      description:
        "The event type's **name** (Access Granted). Unlike /gatewayevents, where eventType is the number: here the number is eventTypeEnum.",
    }),
    eventTypeEnum: Type.Integer({ description: `The event type's number: ${EVENT_TYPE_LIST}.` }),
    eventDetails: NullableString('The details the controller reported.'),
    createdOn: Type.String({
      description:
        "When the event occurred, on the facility's wall clock, ISO 8601 without an offset, with milliseconds: 2026-03-01T09:15:02.123.",
    }),
    createdUtc: Type.String({
      format: 'date-time',
      description: 'When the event occurred, UTC, ISO 8601 with Z and milliseconds: 2026-03-01T16:15:02.123Z.',
    }),
    unitId: NullableId('The unit id the controller reported.'),
    unitName: NullableString(
      'The unit number of that unit at the facility when the event was received; null when the id names no unit there.',
    ),
    visitorId: NullableId('The visitor id the controller reported.'),
    visitorName: NullableString(
      '"First Last" of that visitor at the facility when the event was received; null when the id names no visitor there.',
    ),
  },
  { $id: 'CombinedEvent', description: 'An event in the combined-events shape (SPEC §6.3).' },
);

export const CombinedEventPage = Type.Object(
  {
    metadata: Type.Object({
      totalResults: Type.Integer({
        description: `Events of the filter, counted up to ${MAX_COMBINED_RESULTS.toLocaleString('en-US')} (the most this route returns).`,
      }),
      pageSize: Type.Integer(),
      pageNumber: Type.Integer(),
      totalPages: Type.Integer(),
    }),
    items: Type.Array(CombinedEventSchema),
  },
  { $id: 'CombinedEventPage', description: 'Without hideMetadata=true.' },
);

export const CombinedEventAnswer = Type.Union(
  [CombinedEventPage, Type.Array(CombinedEventSchema, { description: 'With hideMetadata=true.' })],
  { description: 'Newest first: {metadata, items}, or with hideMetadata=true the items alone.' },
);

export const CombinedEventTypeList = Type.Array(
  Type.Object(
    {
      name: Type.String(),
      eventTypeEnum: Type.Integer({ description: 'The number gtq takes and items carry as eventTypeEnum.' }),
      eventCategoryName: Type.Literal(GATEWAY_CONTROLLER_CATEGORY),
      description: Type.String(),
    },
    { $id: 'CombinedEventType', description: 'An event type, in the combined-events shape.' },
  ),
);

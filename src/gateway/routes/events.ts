// POST /gateway/v1/events — a gateway controller reports a batch of events. Each event is judged on
// its own (src/events/judge.ts) so that one bad event never jams the controller's queue; the answer
// comes only after the accepted events are committed (src/events/ingest.ts).
import { isUtf8 } from 'node:buffer';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../http/caller.ts';
import {
  CLOCK_AHEAD_TOLERANCE_MS,
  EVENT_TYPE_LIST,
  FIELD_LIMITS,
  MAX_BATCH_EVENTS,
  MAX_INGEST_BODY_BYTES,
} from '../../events/index.ts';
import { AppError, forbidden } from '../../errors.ts';
import { scoped } from '../../http/access.ts';
import { Answer, EXPECTED } from '../../http/schemas.ts';
import { MAX_BODY_DEPTH } from '../../http/validation.ts';
import type { Events } from '../../events/index.ts';

// What a batch is, in the words of the 400 that refuses a body that is not one (a single event, an
// array of events, a string): "body must be {"events": [ … ]}, a batch of up to 1000 events, …".
const EVENT_SHAPE = '{"eventId", "eventType", "occurredAt", …}';
const BATCH_SHAPE = `{"events": [ … ]}, a batch of up to ${MAX_BATCH_EVENTS} events, each ${EVENT_SHAPE}`;

// Each event stays unknown to validation: the handler judges each on its own (src/events/judge.ts).
const IngestBody = Type.Object(
  {
    events: Type.Array(Type.Unknown(), {
      maxItems: MAX_BATCH_EVENTS,
      [EXPECTED]: `an array of up to ${MAX_BATCH_EVENTS} events, each ${EVENT_SHAPE}`,
      description:
        `Up to ${MAX_BATCH_EVENTS} events (none is a batch too), each {eventId, eventType, occurredAt, deviceId?, deviceName?, unitId?, ` +
        'visitorId?, codeEntered?, details?, data?}.',
    }),
  },
  {
    $id: 'GatewayEventBatch',
    [EXPECTED]: BATCH_SHAPE,
    examples: [
      {
        events: [
          {
            eventId: 'fac12-000184',
            eventType: 18,
            occurredAt: '2026-11-25T09:03:12-05:00',
            deviceId: 'kp-front',
            deviceName: 'Front Gate Keypad',
            unitId: 301,
            visitorId: 5821,
          },
          {
            eventId: 'fac12-000185',
            eventType: 15,
            occurredAt: '2026-11-25T09:04:40-05:00',
            deviceId: 'kp-front',
            deviceName: 'Front Gate Keypad',
            codeEntered: '9917',
          },
          {
            eventId: 'fac12-000186',
            eventType: 3,
            occurredAt: '2026-11-25T09:05:02-05:00',
            data: { commandId: '7d1f0a52-3c1e-4b7a-9a55-2f0c8e6b9d41' },
          },
          { eventId: 'fac12-000187', eventType: 10, occurredAt: '2026-11-25 09:06', deviceId: 'door-1' },
          {
            eventId: 'fac12-000188',
            eventType: 3,
            occurredAt: '2026-11-25T09:06:30-05:00',
            data: {
              commandId: '0b6c51e2-8d7f-4c2a-b1e9-5a4d3c2b1a09',
              result: 'failed',
              reason: 'Gate operator did not answer within 5 s',
            },
          },
        ],
      },
    ],
  },
);

const Rejected = Type.Object(
  {
    index: Type.Integer({ description: 'Position of the event in the batch.' }),
    eventId: Type.Union([Type.String(), Type.Null()]),
    path: Type.String({ description: 'The field at fault, e.g. events[3].occurredAt.' }),
    reason: Type.String(),
  },
  { $id: 'RejectedGatewayEvent' },
);
const Warning = Type.Object(
  {
    index: Type.Integer(),
    eventId: Type.Union([Type.String(), Type.Null()]),
    path: Type.String(),
    code: Type.String({
      description:
        'CLOCK_AHEAD (stored at the time received), NOT_AN_ID (a unitId or visitorId that is not a positive integer: ' +
        'the event is stored without it, the value kept in data.reportedUnitId / data.reportedVisitorId) or ' +
        'UNKNOWN_COMMAND (a failed acknowledgement whose data.commandId names no command of the facility: the event ' +
        'is stored, no command is marked failed).',
    }),
    message: Type.String(),
  },
  { $id: 'GatewayEventWarning' },
);
const IngestAnswer = Type.Object(
  {
    accepted: Type.Integer({ description: 'Events stored by this request (committed before this answer).' }),
    duplicates: Type.Integer({
      description:
        'Events whose eventId the facility had already reported (stored once), or repeated within the batch.',
    }),
    rejected: Type.Array(Rejected, { description: 'Events that were not stored; drop them, do not resend them.' }),
    warnings: Type.Array(Warning),
  },
  {
    $id: 'GatewayEventBatchResult',
    examples: [
      {
        accepted: 4,
        duplicates: 0,
        rejected: [
          {
            index: 3,
            eventId: 'fac12-000187',
            path: 'events[3].occurredAt',
            reason: 'must be an ISO 8601 date-time with an offset, e.g. 2026-03-01T09:15:00-07:00',
          },
        ],
        warnings: [],
      },
    ],
  },
);

const DESCRIPTION = [
  `Reports up to ${MAX_BATCH_EVENTS} events of the token's facility (gateway token, scope gateway). Body at most`,
  `${MAX_INGEST_BODY_BYTES / 1024 / 1024} MiB of UTF-8 JSON.`,
  'Idempotent: an eventId the facility already reported is counted in duplicates and stored once, so a batch can',
  'be retried safely. The answer comes only after the accepted events are durably stored.',
  'Each event is judged on its own: a malformed event (unknown eventType, an occurredAt that is not an ISO 8601',
  'date-time with offset, a missing eventId, a field over its limit) or one older than the retention window is',
  'listed in rejected with its index, field and reason, and the others are stored.',
  `An occurredAt more than ${CLOCK_AHEAD_TOLERANCE_MS / 60_000} minutes ahead of the service's clock is stored as`,
  `the time received, the reported value kept in data.reportedOccurredAt, with a CLOCK_AHEAD warning.`,
  `Limits: eventId ${FIELD_LIMITS.eventId} characters, deviceId ${FIELD_LIMITS.deviceId}, deviceName`,
  `${FIELD_LIMITS.deviceName}, unitId ${FIELD_LIMITS.unitId}, visitorId ${FIELD_LIMITS.visitorId}, codeEntered`,
  `${FIELD_LIMITS.codeEntered}, details ${FIELD_LIMITS.details}; data an object of at most`,
  `${FIELD_LIMITS.dataBytes} bytes as JSON. Text must be valid Unicode without control characters (details may`,
  `hold tabs and line breaks). Unknown fields are ignored.`,
  'codeEntered is stored masked ("****" and its last two characters) and never in clear. unitId and visitorId are',
  'integers (a JSON number or its digits), resolved to the unit number and the visitor name when they name a unit',
  'or visitor of the facility; another value is stored in data.reportedUnitId / reportedVisitorId with a NOT_AN_ID',
  'warning, and the event kept. An event of type 3 (Command Received) with data.commandId acknowledges that command:',
  'as applied (data.result absent or "applied"), or as failed with data.result "failed" and an optional data.reason',
  `(a string of at most ${FIELD_LIMITS.commandFailureReason} characters); another data.result, or a data.reason that`,
  'is not such a string, rejects the event. The first word on a command stands (a command acknowledged or failed',
  'stays so); a failed acknowledgement naming no command of the facility is stored with an UNKNOWN_COMMAND warning.',
  `Refused whole only when the request is not a batch: not UTF-8 JSON, no events array, more than`,
  `${MAX_BATCH_EVENTS} events, objects and arrays nested deeper than ${MAX_BODY_DEPTH} levels in the body`,
  `(400, BODY_TOO_DEEP), or a body over the limit (413).`,
  `Event types: ${EVENT_TYPE_LIST}.`,
].join(' ');

export const gatewayEventRoutes: FastifyPluginAsyncTypebox<{ events: Events }> = async (app, { events }) => {
  // JSON bodies of this route are read as bytes: bytes that are not UTF-8 make the request "not
  // JSON" (RFC 8259) and are refused, rather than silently replaced with U+FFFD.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: MAX_INGEST_BODY_BYTES },
    (_request, body, done) => {
      const bytes = body as Buffer;
      if (!isUtf8(bytes)) {
        done(new AppError(400, 'MALFORMED_JSON', 'The request body is not valid UTF-8.'), undefined);
        return;
      }
      try {
        done(null, JSON.parse(bytes.toString('utf8')));
      } catch {
        done(new AppError(400, 'MALFORMED_JSON', 'The request body is not valid JSON.'), undefined);
      }
    },
  );

  app.post(
    '/gateway/v1/events',
    {
      bodyLimit: MAX_INGEST_BODY_BYTES,
      config: { ...scoped('gateway'), bodyTextCheckedByHandler: true },
      schema: {
        operationId: 'reportGatewayEvents',
        tags: ['gateway'],
        summary: "Report the facility's events.",
        description: DESCRIPTION,
        body: IngestBody,
        response: {
          200: Answer('The batch is judged: what was stored, what was a duplicate, what was refused.', IngestAnswer),
        },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      if (principal.kind !== 'gateway') throw forbidden('Only a gateway controller token reports events.');
      return events.ingest(
        { accountId: principal.accountId, facilityId: principal.facilityId },
        request.body.events,
        Date.now(),
      );
    },
  );
};

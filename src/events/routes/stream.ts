// GET /gatewayevents/accounts/{accountId}/stream and /gatewayevents/facilities/{facilityId}/stream
// (3.0, SPEC §6.4): the events as they are stored, as server-sent events (stream.ts). The SSE
// framing is written here by hand (sse.ts, a dozen lines) rather than with @fastify/sse or
// better-sse: the reply stays an ordinary fastify reply (a Readable sent with reply.send), so the
// access declaration, the guard, CORS, the request id, the rate limit and the deadline's end all
// apply as on every other route, and back-pressure is the stream's own (docs/faces/events.md).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { credentialKey, principalOf } from '../../http/caller.ts';
import { AppError } from '../../errors.ts';
import type { EventRouteOptions } from './common.ts';
import { InvalidCursorError } from '../cursor.ts';
import { STREAM_DEFAULTS } from '../stream.ts';
import { parseFilter, type FilterParams } from '../filters.ts';
import type { EventScope } from '../query.ts';
import { AccountParams, AccountStreamQuery, FacilityParams, FacilityStreamQuery, StreamHeaders } from '../schemas.ts';
import { ACCOUNT_FILTERED, FACILITY_FILTERED, V3_NOTE, accountScope, facilityScope, retentionNote } from './common.ts';

const streamResponse = (heartbeatSeconds: number) => ({
  200: {
    description:
      'text/event-stream: each event as `id: <cursor>` and `data: <GatewayEvent JSON>`, and a comment line ' +
      `(\`: keep-alive\`) after ${heartbeatSeconds} s without a write; when the service ends the stream for its ` +
      'token (expired) or credential (revoked), a final `event: end` with `data: {"code", "detail"}`.',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  },
});

const badLastEventId = () =>
  new AppError(
    400,
    'INVALID_LAST_EVENT_ID',
    'The Last-Event-ID header is not an event id of this stream: send the id of the last event received, unchanged, ' +
      'to the same route with the same eventTypes, facilityIds, unitIds, visitorIds, startDate and endDate.',
    [{ path: 'Last-Event-ID', message: 'is not an event id of this stream' }],
  );

/** Retry-After of the 429 for one stream too many: a slot frees when one of the credential's streams ends. */
const TOO_MANY_STREAMS_RETRY_SECONDS = 5;

const tooManyStreams = (limit: number) =>
  new AppError(
    429,
    'TOO_MANY_STREAMS',
    `This token's credential already holds ${limit} open live event streams, the most it may hold at once: close ` +
      'one before opening another (one account stream with facilityIds can follow several facilities).',
    [],
    { 'retry-after': String(TOO_MANY_STREAMS_RETRY_SECONDS) },
  );

export const streamRoutes: FastifyPluginAsyncTypebox<EventRouteOptions> = async (app, { face, settings }) => {
  const tags = ['access events'];
  const heartbeatSeconds = STREAM_DEFAULTS.heartbeatMs / 1000;
  // Before the server waits for its requests: the streams end now (clients reconnect elsewhere).
  app.addHook('preClose', async () => face.streams.beginClosing());

  const description = (what: string) =>
    `${what} as server-sent events (text/event-stream), each as it is stored: the GatewayEvent JSON of the list ` +
    'route in `data:`, its cursor in `id:`. Filters as the list route (eventTypes, unitIds, visitorIds, startDate, ' +
    'endDate); no paging or sort: events come in delivery order. Without Last-Event-ID the stream starts now — or, ' +
    'with startDate, with every retained event since startDate (oldest first), then what is stored later. A ' +
    'reconnect with the Last-Event-ID header (an EventSource sends it) continues exactly after that event: nothing ' +
    'missed or repeated, events stored late with an old occurredAt included. An id is also a cursor of the list ' +
    `route with the same filters and sort=asc. A comment line comes after ${heartbeatSeconds} s without an event. ` +
    'The stream ends ' +
    'when the service shuts down, after a `retry:` field (1 to 2 s) and a comment: reconnect (with Last-Event-ID); ' +
    'behind a load balancer the reconnect reaches another instance. It also ends when the token expires or its ' +
    'credential is revoked, within ' +
    `${Math.ceil(STREAM_DEFAULTS.credentialCheckMs / 1000)} s (plus a lookup), with a final \`event: end\` whose data is ` +
    '`{"code": "TOKEN_EXPIRED" | "CREDENTIAL_REVOKED", "detail": …}` and no id (after TOKEN_EXPIRED, reconnect with a ' +
    'new token and Last-Event-ID). One credential may hold ' +
    `${settings.streamsPerCredential} streams open at once on one instance: beyond, 429 TOO_MANY_STREAMS ` +
    'with Retry-After. ' +
    `${retentionNote(settings.retentionDays)} ${V3_NOTE}`;

  async function stream(request: FastifyRequest, reply: FastifyReply, scope: EventScope, query: FilterParams) {
    const filter = parseFilter(scope, { ...query, sort: 'asc' });
    const lastEventId = (request.headers as { 'last-event-id'?: string })['last-event-id'] || undefined;
    reply
      .type('text/event-stream; charset=utf-8')
      .header('cache-control', 'no-store')
      // Nothing to keep alive once the stream ends (shutdown): the socket closes with it.
      .header('connection', 'close')
      // Proxies that buffer answers (nginx) pass this one on as it comes.
      .header('x-accel-buffering', 'no');
    if (request.method === 'HEAD') return reply.send('');
    const principal = principalOf(request);
    const { streams } = face;
    const slot = streams.admit({ credential: credentialKey(principal), expiresAt: principal.expiresAt });
    if (!slot) throw tooManyStreams(streams.settings.perCredential);
    let first: Awaited<ReturnType<typeof streams.begin>>;
    try {
      first = await streams.begin(filter, lastEventId, lastEventId ? undefined : (filter.start ?? undefined));
    } catch (error) {
      slot.release();
      if (error instanceof InvalidCursorError) throw badLastEventId();
      throw error;
    }
    return reply.send(streams.frames(filter, first, reply.raw, slot));
  }

  app.get(
    '/gatewayevents/accounts/:accountId/stream',
    {
      config: ACCOUNT_FILTERED,
      schema: {
        operationId: 'streamAccountGatewayEvents',
        tags,
        summary: "The account's events as they are stored (server-sent events).",
        description: description(
          "The events of every facility of the token's own account (any other account: 404); facilityIds narrows " +
            'them',
        ),
        params: AccountParams,
        querystring: AccountStreamQuery,
        headers: StreamHeaders,
        response: streamResponse(heartbeatSeconds),
      },
    },
    async (request, reply) => stream(request, reply, accountScope(request.params.accountId), request.query),
  );

  app.get(
    '/gatewayevents/facilities/:facilityId/stream',
    {
      config: FACILITY_FILTERED,
      schema: {
        operationId: 'streamFacilityGatewayEvents',
        tags,
        summary: "A facility's events as they are stored (server-sent events).",
        description: description("The events of one facility of the token's account (any other: 404)"),
        params: FacilityParams,
        querystring: FacilityStreamQuery,
        headers: StreamHeaders,
        response: streamResponse(heartbeatSeconds),
      },
    },
    async (request, reply) => stream(request, reply, facilityScope(request), request.query),
  );
};

// The access-event face (/gatewayevents): v3.0, and the legacy versions 2.0 (/events) and 1.0 (the
// v3 paths with `api-version: 1.0`). Routes parse, call the store, and render; the rules live in
// filters.ts, query.ts, cursor.ts, csv.ts and time.ts.
import { Readable } from 'node:stream';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { facilityOf } from '../auth/guard.ts';
import type { Scope } from '../http/access.ts';
import { AppError, validationFailed, type FieldError } from '../errors.ts';
import { ensureApiVersionConstraint, serveApiVersion, type EventApiVersion } from '../http/versioning.ts';
import type { Services } from '../services.ts';
import { EVENT_TYPE_LIST, EVENT_TYPES } from './catalogue.ts';
import { InvalidCursorError } from './cursor.ts';
import { CSV_HEADER_LINE, csvLines, csvRowOf } from './csv.ts';
import { parseEventTypes, parseFilter, type FilterParams } from './filters.ts';
import { DEFAULT_PAGE_SIZE, EXPORT_CHUNK_ROWS, MAX_PAGE_SIZE } from './limits.ts';
import { eventMetrics } from './metrics.ts';
import type { EventFilter, EventScope } from './query.ts';
import { eventsJson, pageJson } from './render.ts';
import {
  AccountEventsQuery,
  AccountParams,
  CSV_DESCRIPTION,
  EventPage,
  EventTypeList,
  FacilityEventsQuery,
  FacilityParams,
  GatewayEventSchema,
  V1AccountQuery,
  V1FacilityQuery,
  V2FacilityQuery,
  V2Page,
} from './schemas.ts';
import type { EventStore } from './store.ts';

type Options = { services: Services };

const READ_SCOPES: Scope[] = ['accessevent:read'];
const ACCOUNT_ACCESS = { access: { scopes: READ_SCOPES, accountParam: 'accountId' } };
const FACILITY_ACCESS = { access: { scopes: READ_SCOPES, facilityParam: 'facilityId' } };
const TYPES_ACCESS = { access: { scopes: READ_SCOPES } };

// Which versions each route exists in: quoted by the 400 for a version it does not have.
const ROUTE_VERSIONS: Record<string, readonly EventApiVersion[]> = {
  '/gatewayevents/types': ['1.0', '3.0'],
  '/gatewayevents/accounts/:accountId': ['1.0', '3.0'],
  '/gatewayevents/facilities/:facilityId': ['1.0', '3.0'],
  '/gatewayevents/accounts/:accountId/export': ['3.0'],
  '/gatewayevents/facilities/:facilityId/export': ['3.0'],
  '/events/types': ['2.0'],
  '/events/facilities/:facilityId': ['2.0'],
};
const versionsOfRoute = (url: string) => ROUTE_VERSIONS[url] ?? ['3.0'];

const RETENTION_NOTE = (services: Services) => `Events older than the retention window (${services.config.eventRetentionDays} days) are deleted and never returned.`;

const invalidCursor = () =>
  new AppError(400, 'INVALID_CURSOR', 'The cursor is not valid for this request: pass metadata.nextCursor unchanged, to the same route, with the same eventTypes, facilityIds, startDate, endDate and sort.', [
    { path: 'cursor', message: 'is not a cursor of this query' },
  ]);

async function withCursorCheck<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof InvalidCursorError) throw invalidCursor();
    throw error;
  }
}

interface PagingParams {
  pageSize?: number;
  pageNumber?: number;
  cursor?: string;
}

async function readPage(store: EventStore, filter: EventFilter, paging: PagingParams) {
  const pageSize = paging.pageSize ?? DEFAULT_PAGE_SIZE;
  const page = await withCursorCheck(store.page(filter, { pageSize, pageNumber: paging.pageNumber ?? 1, cursor: paging.cursor || null }));
  const metadata = { pageSize, pageNumber: page.pageNumber, totalResults: page.totalResults, totalPages: Math.ceil(page.totalResults / pageSize), nextCursor: page.nextCursor };
  return { page, metadata };
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** Sends JSON text written by render.ts (the route's response schema documents it). */
const sendJson = (reply: FastifyReply, json: string) => reply.type(JSON_TYPE).send(Buffer.from(json));

/** The scope of a facility route (the guard has checked the facility is the token's). */
function facilityScope(request: FastifyRequest): EventScope {
  const facility = facilityOf(request);
  return { kind: 'facility', facilityId: facility.id, accountId: facility.accountId };
}

const fileStamp = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, '').slice(0, 15) + 'Z';

/**
 * Streams a CSV export. Without pageSize/pageNumber/cursor: every matching event committed when
 * the export began, read by keyset in chunks and written through back-pressure (memory does not
 * grow with the export; a client that goes away stops the reads). With them: that one page, and
 * the next page's cursor in the X-Next-Cursor header.
 */
async function sendCsv(reply: FastifyReply, store: EventStore, services: Services, filter: EventFilter, paging: PagingParams, subject: string) {
  const metrics = eventMetrics(services.metrics.registry);
  let source: AsyncGenerator<string> | null = null;
  if (reply.request.method === 'HEAD') {
    // The headers only (fastify would otherwise drain a whole export to discard it).
  } else if (paging.pageSize !== undefined || paging.pageNumber !== undefined || paging.cursor) {
    const { page } = await readPage(store, filter, paging);
    if (page.nextCursor) reply.header('x-next-cursor', page.nextCursor);
    reply.header('x-total-count', String(page.totalResults));
    metrics.exportedRows.inc(page.rows.length);
    source = (async function* () {
      yield CSV_HEADER_LINE + csvLines(page.rows.map(csvRowOf));
    })();
  } else {
    const chunks = store.exportChunks(filter, EXPORT_CHUNK_ROWS);
    // The first read happens before the headers go out, so that a failure is still a proper error.
    const first = await chunks.next();
    source = (async function* () {
      try {
        let rows = first.done ? [] : first.value;
        yield CSV_HEADER_LINE + csvLines(rows);
        metrics.exportedRows.inc(rows.length);
        for (;;) {
          const next = await chunks.next();
          if (next.done) return;
          rows = next.value;
          metrics.exportedRows.inc(rows.length);
          yield csvLines(rows);
        }
      } finally {
        await chunks.return(undefined);
      }
    })();
  }
  reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="gateway-events-${subject}-${fileStamp(Date.now())}.csv"`)
    .header('cache-control', 'no-store');
  return reply.send(source ? Readable.from(source, { objectMode: true, highWaterMark: 1 }) : '');
}

const csvResponse = {
  200: {
    description: CSV_DESCRIPTION,
    content: { 'text/csv': { schema: { type: 'string' } } },
  },
};

function filterParams(query: FilterParams & { facilityIds?: string[] }): FilterParams {
  return { eventTypes: query.eventTypes, facilityIds: query.facilityIds, startDate: query.startDate, endDate: query.endDate, sort: query.sort };
}

const V3_NOTE =
  'Version 3.0 (current, the default): name it with the api-version header or query parameter, or name none. Errors are application/problem+json; a 400 lists every invalid parameter.';

/** v3.0 routes (registered in the v3.0 document's scope). */
export const eventRoutes: FastifyPluginAsyncTypebox<Options> = async (app, { services }) => {
  ensureApiVersionConstraint(app);
  serveApiVersion(app, '3.0', { isDefault: true, versionsOfRoute });
  const { store } = services.events;
  const tags = ['access events'];
  const pageDescription = (what: string) =>
    `${what} Filters: eventTypes, startDate (inclusive), endDate (exclusive), sort; paging: pageSize (1–${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}) with pageNumber, or cursor. ` +
    `metadata.nextCursor continues after the last item; a cursor walk returns every event exactly once even while events arrive (see cursor). Each item has occurredAt in UTC and occurredAtLocal in the facility's time zone. ${RETENTION_NOTE(services)} ${V3_NOTE}`;

  app.get(
    '/gatewayevents/types',
    {
      config: TYPES_ACCESS,
      schema: {
        tags,
        summary: 'The event types.',
        description: `Every event type a gateway controller reports: ${EVENT_TYPE_LIST}. ${V3_NOTE}`,
        querystring: Type.Object({ 'api-version': Type.Optional(Type.String()) }),
        response: { 200: EventTypeList },
      },
    },
    async () => [...EVENT_TYPES],
  );

  app.get(
    '/gatewayevents/accounts/:accountId',
    {
      config: ACCOUNT_ACCESS,
      schema: {
        tags,
        summary: "The account's events, filtered and paged.",
        description: pageDescription(
          "Events of every facility of the token's own account (any other account: 404); facilityIds narrows them (a facility of another account matches nothing).",
        ),
        params: AccountParams,
        querystring: AccountEventsQuery,
        response: { 200: EventPage },
      },
    },
    async (request, reply) => {
      const filter = parseFilter({ kind: 'account', accountId: request.params.accountId.toLowerCase() }, filterParams(request.query));
      const { page, metadata } = await readPage(store, filter, request.query);
      return sendJson(reply, pageJson(metadata, page.rows));
    },
  );

  app.get(
    '/gatewayevents/facilities/:facilityId',
    {
      config: FACILITY_ACCESS,
      schema: {
        tags,
        summary: "A facility's events, filtered and paged.",
        description: pageDescription("Events of one facility of the token's account (any other: 404)."),
        params: FacilityParams,
        querystring: FacilityEventsQuery,
        response: { 200: EventPage },
      },
    },
    async (request, reply) => {
      const filter = parseFilter(facilityScope(request), filterParams(request.query));
      const { page, metadata } = await readPage(store, filter, request.query);
      return sendJson(reply, pageJson(metadata, page.rows));
    },
  );

  const exportDescription = (what: string) =>
    `${what} as CSV (RFC 4180, UTF-8, header row; Content-Disposition: attachment). Same parameters and filters as the list route. ` +
    `Without pageSize, pageNumber or cursor it streams every matching event committed when the export began, in constant memory whatever the size; ` +
    `with them, just that page (X-Next-Cursor: the next page's cursor, X-Total-Count). ${CSV_DESCRIPTION} ${RETENTION_NOTE(services)} ${V3_NOTE}`;

  app.get(
    '/gatewayevents/accounts/:accountId/export',
    {
      config: ACCOUNT_ACCESS,
      schema: { tags, summary: "The account's events as CSV.", description: exportDescription("The account's events"), params: AccountParams, querystring: AccountEventsQuery, response: csvResponse },
    },
    async (request, reply) => {
      const accountId = request.params.accountId.toLowerCase();
      const filter = parseFilter({ kind: 'account', accountId }, filterParams(request.query));
      return sendCsv(reply, store, services, filter, request.query, `account-${accountId}`);
    },
  );

  app.get(
    '/gatewayevents/facilities/:facilityId/export',
    {
      config: FACILITY_ACCESS,
      schema: { tags, summary: "A facility's events as CSV.", description: exportDescription("The facility's events"), params: FacilityParams, querystring: FacilityEventsQuery, response: csvResponse },
    },
    async (request, reply) => {
      const facility = facilityOf(request);
      const filter = parseFilter(facilityScope(request), filterParams(request.query));
      return sendCsv(reply, store, services, filter, request.query, `facility-${facility.id}`);
    },
  );
};

const LEGACY_NOTE = (version: string) =>
  `Deprecated (version ${version}): answers carry api-deprecated-versions and Deprecation headers; use version 3.0.`;

/** v2.0 legacy routes (registered in the v2.0 document's scope). */
export const eventRoutesV2: FastifyPluginAsyncTypebox<Options> = async (app, { services }) => {
  ensureApiVersionConstraint(app);
  serveApiVersion(app, '2.0', { isDefault: true, versionsOfRoute });
  const { store } = services.events;
  const tags = ['access events (2.0)'];

  app.get(
    '/events/types',
    {
      config: TYPES_ACCESS,
      schema: { tags, deprecated: true, summary: 'The event types.', description: `${EVENT_TYPE_LIST}. ${LEGACY_NOTE('2.0')}`, querystring: Type.Object({ 'api-version': Type.Optional(Type.String()) }), response: { 200: EventTypeList } },
    },
    async () => [...EVENT_TYPES],
  );

  app.get(
    '/events/facilities/:facilityId',
    {
      config: FACILITY_ACCESS,
      schema: {
        tags,
        deprecated: true,
        summary: "A facility's events, by limit and offset.",
        description: `Newest first. minDate (inclusive) and maxDate (exclusive) are Unix seconds; limit 1–${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}), offset ≥ 0. 204 when the page is empty. ${RETENTION_NOTE(services)} ${LEGACY_NOTE('2.0')}`,
        params: FacilityParams,
        querystring: V2FacilityQuery,
        response: { 200: V2Page, 204: Type.Null({ description: 'No events on this page.' }) },
      },
    },
    async (request, reply) => {
      const query = request.query;
      const faults: FieldError[] = [];
      const eventTypes = parseEventTypes(query.eventTypes, faults);
      const start = query.minDate !== undefined ? query.minDate * 1000 : null;
      const end = query.maxDate !== undefined ? query.maxDate * 1000 : null;
      if (start !== null && end !== null && end <= start) faults.push({ path: 'maxDate', message: 'must be after minDate' });
      if (faults.length > 0) throw validationFailed(faults);
      const limit = query.limit ?? DEFAULT_PAGE_SIZE;
      const offset = query.offset ?? 0;
      const filter: EventFilter = { scope: facilityScope(request), facilityIds: null, eventTypes, start, end, sort: 'desc' };
      const { rows, totalResults } = await store.slice(filter, limit, offset, true);
      if (rows.length === 0) return reply.code(204).send(null);
      const total = totalResults ?? 0;
      return sendJson(reply, pageJson({ limit, offset, totalResults: total, totalPages: Math.ceil(total / limit), pageNumber: Math.floor(offset / limit) + 1 }, rows));
    },
  );
};

/** v1.0 legacy routes (registered in the v1.0 document's scope): the v3 paths with api-version 1.0. */
export const eventRoutesV1: FastifyPluginAsyncTypebox<Options> = async (app, { services }) => {
  ensureApiVersionConstraint(app);
  serveApiVersion(app, '1.0', { isDefault: false, versionsOfRoute });
  const { store } = services.events;
  const tags = ['access events (1.0)'];
  const constraints = { apiVersion: '1.0' };
  const description = (what: string) =>
    `${what} Send api-version: 1.0 (header or query). A plain JSON array, newest first unless sort=asc, paged by limit (1–${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}) and offset; filters eventTypes, startDate, endDate as in 3.0. ${RETENTION_NOTE(services)} ${LEGACY_NOTE('1.0')}`;
  const slice = async (reply: FastifyReply, scope: EventScope, query: FilterParams & { limit?: number; offset?: number }) => {
    const filter = parseFilter(scope, filterParams(query));
    const { rows } = await store.slice(filter, query.limit ?? DEFAULT_PAGE_SIZE, query.offset ?? 0, false);
    return sendJson(reply, eventsJson(rows));
  };

  app.get(
    '/gatewayevents/types',
    {
      constraints,
      config: TYPES_ACCESS,
      schema: { tags, deprecated: true, summary: 'The event types.', description: `${EVENT_TYPE_LIST}. ${LEGACY_NOTE('1.0')}`, querystring: Type.Object({ 'api-version': Type.Optional(Type.String()) }), response: { 200: EventTypeList } },
    },
    async () => [...EVENT_TYPES],
  );

  app.get(
    '/gatewayevents/accounts/:accountId',
    {
      constraints,
      config: ACCOUNT_ACCESS,
      schema: {
        tags,
        deprecated: true,
        summary: "The account's events (plain array).",
        description: description("Events of the token's own account; facilityIds narrows them."),
        params: AccountParams,
        querystring: V1AccountQuery,
        response: { 200: Type.Array(GatewayEventSchema) },
      },
    },
    async (request, reply) => slice(reply, { kind: 'account', accountId: request.params.accountId.toLowerCase() }, request.query),
  );

  app.get(
    '/gatewayevents/facilities/:facilityId',
    {
      constraints,
      config: FACILITY_ACCESS,
      schema: {
        tags,
        deprecated: true,
        summary: "A facility's events (plain array).",
        description: description('Events of one facility of the account.'),
        params: FacilityParams,
        querystring: V1FacilityQuery,
        response: { 200: Type.Array(GatewayEventSchema) },
      },
    },
    async (request, reply) => slice(reply, facilityScope(request), request.query),
  );
};

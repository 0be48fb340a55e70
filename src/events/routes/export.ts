// GET /gatewayevents/accounts/{accountId}/export and /gatewayevents/facilities/{facilityId}/export
// (3.0): the events as a CSV download.
import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { facilityOf } from '../../http/caller.ts';
import type { EventRouteOptions } from './common.ts';
import { exportCsv } from '../export.ts';
import { EXACT_TOTAL_CAP } from '../limits.ts';
import { parseFilter } from '../filters.ts';
import type { EventFilter } from '../query.ts';
import type { PagingParams } from '../reads.ts';
import { AccountEventsQuery, AccountParams, CSV_DESCRIPTION, FacilityEventsQuery, FacilityParams } from '../schemas.ts';
import {
  ACCOUNT_FILTERED,
  FACILITY_FILTERED,
  V3_NOTE,
  accountScope,
  facilityScope,
  filterParams,
  retentionNote,
} from './common.ts';

// The CSV is sent as it is written (not serialized by fastify): the content form documents it, with
// the headers a download and a paged export carry.
const csvResponse = {
  200: {
    description: `The events as a CSV download: ${CSV_DESCRIPTION}`,
    headers: {
      'content-disposition': {
        type: 'string',
        description: 'attachment; filename="gateway-events-<account-N or facility-N>-<UTC time, YYYYMMDDTHHMMSSZ>.csv"',
      },
      'x-next-cursor': {
        type: 'string',
        description: "Paged exports: the next page's cursor; absent when the walk has returned every event.",
      },
      'x-total-count': {
        type: 'integer',
        minimum: 0,
        description:
          'Paged exports: the events of the filter (exact, or an estimate when X-Total-Count-Exact is false).',
      },
      'x-total-count-exact': {
        type: 'string',
        enum: ['true', 'false'],
        description: 'Paged exports: whether X-Total-Count is exact.',
      },
    },
    content: { 'text/csv': { schema: { type: 'string' } } },
  },
};

const fileStamp = (ms: number) => `${new Date(ms).toISOString().replace(/[-:]/g, '').slice(0, 15)}Z`;

export const exportRoutes: FastifyPluginAsyncTypebox<EventRouteOptions> = async (app, { face, settings }) => {
  const tags = ['access events'];
  const exportDescription = (what: string) =>
    `${what} as CSV (RFC 4180, UTF-8, header row; Content-Disposition: attachment). Same parameters and filters as ` +
    'the list route. Without pageSize, pageNumber or cursor it streams every matching event committed when the export ' +
    "began, in constant memory whatever the size; with them, just that page (X-Next-Cursor: the next page's cursor, " +
    `X-Total-Count, exact up to ${EXACT_TOTAL_CAP.toLocaleString('en-US')} events and beyond that the database planner's ` +
    `estimate, with X-Total-Count-Exact: true or false). ${CSV_DESCRIPTION} ${retentionNote(settings.retentionDays)} ${V3_NOTE}`;

  /** Download headers go out only once the first rows are read: an error is never an attachment. */
  async function sendCsv(reply: FastifyReply, filter: EventFilter, paging: PagingParams, subject: string) {
    // HEAD: the headers only (fastify would otherwise drain a whole export to discard it).
    const csv =
      reply.request.method === 'HEAD' ? null : await exportCsv(face.store, filter, paging, face.metrics.exportedRows);
    if (csv?.nextCursor) reply.header('x-next-cursor', csv.nextCursor);
    if (csv?.totalResults != null) reply.header('x-total-count', String(csv.totalResults));
    if (csv?.totalResultsExact != null) reply.header('x-total-count-exact', String(csv.totalResultsExact));
    reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="gateway-events-${subject}-${fileStamp(Date.now())}.csv"`)
      .header('cache-control', 'no-store');
    return reply.send(csv ? Readable.from(csv.lines, { objectMode: true, highWaterMark: 1 }) : '');
  }

  app.get(
    '/gatewayevents/accounts/:accountId/export',
    {
      config: ACCOUNT_FILTERED,
      schema: {
        operationId: 'exportAccountGatewayEvents',
        tags,
        summary: "The account's events as CSV.",
        description: exportDescription("The account's events"),
        params: AccountParams,
        querystring: AccountEventsQuery,
        response: csvResponse,
      },
    },
    async (request, reply) => {
      const { accountId } = request.params;
      const filter = parseFilter(accountScope(accountId), filterParams(request.query));
      return sendCsv(reply, filter, request.query, `account-${accountId}`);
    },
  );

  app.get(
    '/gatewayevents/facilities/:facilityId/export',
    {
      config: FACILITY_FILTERED,
      schema: {
        operationId: 'exportFacilityGatewayEvents',
        tags,
        summary: "A facility's events as CSV.",
        description: exportDescription("The facility's events"),
        params: FacilityParams,
        querystring: FacilityEventsQuery,
        response: csvResponse,
      },
    },
    async (request, reply) => {
      const filter = parseFilter(facilityScope(request), filterParams(request.query));
      return sendCsv(reply, filter, request.query, `facility-${facilityOf(request).id}`);
    },
  );
};

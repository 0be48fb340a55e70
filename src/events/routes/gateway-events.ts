// GET /gatewayevents/accounts/{accountId} and /gatewayevents/facilities/{facilityId} (3.0): the
// events, filtered and paged by number or by cursor.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { EventRouteOptions } from './common.ts';
import { Answer } from '../../http/schemas.ts';
import { parseFilter } from '../filters.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../limits.ts';
import { readPage } from '../reads.ts';
import { pageJson } from '../render.ts';
import { AccountEventsQuery, AccountParams, EventPage, FacilityEventsQuery, FacilityParams } from '../schemas.ts';
import {
  ACCOUNT_FILTERED,
  FACILITY_FILTERED,
  V3_NOTE,
  accountScope,
  facilityScope,
  filterParams,
  retentionNote,
  sendJson,
} from './common.ts';

export const gatewayEventRoutes: FastifyPluginAsyncTypebox<EventRouteOptions> = async (app, { face, settings }) => {
  const tags = ['access events'];
  const pageDescription = (what: string) =>
    `${what} Filters: eventTypes, unitIds, visitorIds (the ids the controller reported), startDate (inclusive), ` +
    `endDate (exclusive), sort; paging: pageSize ` +
    `(1–${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}) with pageNumber, or cursor. metadata.nextCursor continues ` +
    'after the last item; a cursor walk returns every event exactly once even while events arrive (see cursor). ' +
    "Each item has occurredAt in UTC and occurredAtLocal in the facility's time zone. " +
    `${retentionNote(settings.retentionDays)} ${V3_NOTE}`;

  app.get(
    '/gatewayevents/accounts/:accountId',
    {
      config: ACCOUNT_FILTERED,
      schema: {
        operationId: 'listAccountGatewayEvents',
        tags,
        summary: "The account's events, filtered and paged.",
        description: pageDescription(
          "Events of every facility of the token's own account (any other account: 404); facilityIds narrows them " +
            '(a facility of another account matches nothing).',
        ),
        params: AccountParams,
        querystring: AccountEventsQuery,
        response: { 200: Answer("A page of the account's events, with its metadata.", EventPage) },
      },
    },
    async (request, reply) => {
      const filter = parseFilter(accountScope(request.params.accountId), filterParams(request.query));
      const { page, metadata } = await readPage(face.store, filter, request.query);
      return sendJson(reply, pageJson(metadata, page.rows));
    },
  );

  app.get(
    '/gatewayevents/facilities/:facilityId',
    {
      config: FACILITY_FILTERED,
      schema: {
        operationId: 'listFacilityGatewayEvents',
        tags,
        summary: "A facility's events, filtered and paged.",
        description: pageDescription("Events of one facility of the token's account (any other: 404)."),
        params: FacilityParams,
        querystring: FacilityEventsQuery,
        response: { 200: Answer("A page of the facility's events, with its metadata.", EventPage) },
      },
    },
    async (request, reply) => {
      const filter = parseFilter(facilityScope(request), filterParams(request.query));
      const { page, metadata } = await readPage(face.store, filter, request.query);
      return sendJson(reply, pageJson(metadata, page.rows));
    },
  );
};

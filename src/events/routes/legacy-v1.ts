// Version 1.0 (deprecated): the v3 paths with `api-version: 1.0`, plain JSON arrays by limit and
// offset (registered in the v1.0 document's scope).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Answer } from '../../http/schemas.ts';
import type { EventRouteOptions } from './common.ts';
import { parseFilter, type FilterParams } from '../filters.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../limits.ts';
import type { EventScope } from '../query.ts';
import { readSlice } from '../reads.ts';
import { eventsJson } from '../render.ts';
import { AccountParams, FacilityParams, GatewayEventSchema, V1AccountQuery, V1FacilityQuery } from '../schemas.ts';
import {
  ACCOUNT_FILTERED,
  FACILITY_FILTERED,
  accountScope,
  facilityScope,
  filterParams,
  legacyNote,
  legacyTypesRoute,
  listEventTypes,
  retentionNote,
  sendJson,
} from './common.ts';

export const legacyV1Routes: FastifyPluginAsyncTypebox<EventRouteOptions> = async (app, { face, settings }) => {
  const tags = ['access events (1.0)'];
  const constraints = { apiVersion: '1.0' };
  const description = (what: string) =>
    `${what} Send api-version: 1.0 (header or query). A plain JSON array, newest first unless sort=asc, paged by ` +
    `limit (1–${MAX_PAGE_SIZE}, default ${DEFAULT_PAGE_SIZE}) and offset; filters eventTypes, unitIds, visitorIds, ` +
    `startDate, endDate as in 3.0. ${retentionNote(settings.retentionDays)} ${legacyNote('1.0')}`;
  const slice = async (
    reply: FastifyReply,
    scope: EventScope,
    query: FilterParams & { limit?: number; offset?: number },
  ) => {
    const filter = parseFilter(scope, filterParams(query));
    const { rows } = await readSlice(face.store, filter, query.limit ?? DEFAULT_PAGE_SIZE, query.offset ?? 0, false);
    return sendJson(reply, eventsJson(rows));
  };

  app.get('/gatewayevents/types', { constraints, ...legacyTypesRoute('1.0') }, listEventTypes);

  app.get(
    '/gatewayevents/accounts/:accountId',
    {
      constraints,
      config: ACCOUNT_FILTERED,
      schema: {
        tags,
        deprecated: true,
        operationId: 'listAccountGatewayEvents',
        summary: "The account's events (plain array).",
        description: description("Events of the token's own account; facilityIds narrows them."),
        params: AccountParams,
        querystring: V1AccountQuery,
        response: { 200: Answer("The account's events on this page.", Type.Array(GatewayEventSchema)) },
      },
    },
    async (request, reply) => slice(reply, accountScope(request.params.accountId), request.query),
  );

  app.get(
    '/gatewayevents/facilities/:facilityId',
    {
      constraints,
      config: FACILITY_FILTERED,
      schema: {
        tags,
        deprecated: true,
        operationId: 'listFacilityGatewayEvents',
        summary: "A facility's events (plain array).",
        description: description('Events of one facility of the account.'),
        params: FacilityParams,
        querystring: V1FacilityQuery,
        response: { 200: Answer("The facility's events on this page.", Type.Array(GatewayEventSchema)) },
      },
    },
    async (request, reply) => slice(reply, facilityScope(request), request.query),
  );
};

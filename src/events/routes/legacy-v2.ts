// Version 2.0 (deprecated): /events/types and /events/facilities/{facilityId} by limit and offset
// with Unix-second dates (registered in the v2.0 document's scope).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Answer } from '../../http/schemas.ts';
import type { EventRouteOptions } from './common.ts';
import { parseLegacyFilter } from '../filters.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../limits.ts';
import { readSlice } from '../reads.ts';
import { pageJson } from '../render.ts';
import { FacilityParams, V2FacilityQuery, V2Page } from '../schemas.ts';
import {
  LEGACY_FILTERED,
  facilityScope,
  legacyNote,
  legacyTypesRoute,
  listEventTypes,
  retentionNote,
  sendJson,
} from './common.ts';

export const legacyV2Routes: FastifyPluginAsyncTypebox<EventRouteOptions> = async (app, { face, settings }) => {
  const tags = ['access events (2.0)'];

  app.get('/events/types', legacyTypesRoute('2.0'), listEventTypes);

  app.get(
    '/events/facilities/:facilityId',
    {
      config: LEGACY_FILTERED,
      schema: {
        tags,
        deprecated: true,
        operationId: 'listFacilityGatewayEvents',
        summary: "A facility's events, by limit and offset.",
        description:
          `Newest first. minDate (inclusive) and maxDate (exclusive) are Unix seconds; limit 1–${MAX_PAGE_SIZE} ` +
          `(default ${DEFAULT_PAGE_SIZE}), offset ≥ 0. 204 when the page is empty. ` +
          `${retentionNote(settings.retentionDays)} ${legacyNote('2.0')}`,
        params: FacilityParams,
        querystring: V2FacilityQuery,
        response: {
          200: Answer("A page of the facility's events, with its metadata.", V2Page),
          204: Answer('No events on this page.', Type.Null()),
        },
      },
    },
    async (request, reply) => {
      const filter = parseLegacyFilter(facilityScope(request), request.query);
      const { limit = DEFAULT_PAGE_SIZE, offset = 0 } = request.query;
      const { rows, metadata } = await readSlice(face.store, filter, limit, offset, true);
      if (rows.length === 0) return reply.code(204).send(null);
      return sendJson(reply, pageJson(metadata, rows));
    },
  );
};

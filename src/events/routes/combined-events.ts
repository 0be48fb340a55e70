// GET /combinedevents/facilities/{facilityId} and GET /combinedevents/types (SPEC §6.3): the route
// existing PMS integrations read, in versions 3.0 (registered in the v3.0 document's scope, serving
// requests that name no version) and 2.0 (the same handlers in the v2.0 document's scope, reached
// through the api-version router constraint). Its parameters are mapped onto the one EventFilter
// (filters.ts) and read through the one query builder (query.ts), like /gatewayevents.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Answer } from '../../http/schemas.ts';
import type { EventRouteOptions } from './common.ts';
import { COMBINED_EVENT_TYPES } from '../combined.ts';
import { parseCombinedFilter } from '../filters.ts';
import { DEFAULT_PAGE_SIZE, MAX_COMBINED_RESULTS, MAX_PAGE_SIZE } from '../limits.ts';
import { readCombinedPage } from '../reads.ts';
import {
  CombinedEventAnswer,
  CombinedEventsQuery,
  CombinedEventTypeList,
  CombinedTypesQuery,
  FacilityParams,
} from '../schemas.ts';
import {
  COMBINED_FILTERED,
  TYPES_ACCESS,
  V3_NOTE,
  facilityScope,
  legacyNote,
  retentionNote,
  sendJson,
} from './common.ts';

type Options = EventRouteOptions & { apiVersion?: '2.0' | '3.0' };

const WHY =
  'The combined-events route that existing PMS integrations read (reports, unit and visitor histories): same events ' +
  'as /gatewayevents, in the shape those integrations were written for.';

const TYPES_JSON = JSON.stringify(COMBINED_EVENT_TYPES);

export const combinedEventRoutes: FastifyPluginAsyncTypebox<Options> = async (
  app,
  { face, clock, settings, apiVersion },
) => {
  const legacy = apiVersion === '2.0';
  const constraints = legacy ? { apiVersion: '2.0' } : undefined;
  const tags = [legacy ? 'combined events (2.0)' : 'combined events'];
  const versionNote = legacy
    ? `${legacyNote('2.0')} Version 2.0 of this route answers exactly as 3.0.`
    : `Versions 3.0 (the default) and 2.0 answer alike. ${V3_NOTE}`;

  app.get(
    '/combinedevents/types',
    {
      constraints,
      config: TYPES_ACCESS,
      schema: {
        operationId: 'listCombinedEventTypes',
        tags,
        deprecated: legacy || undefined,
        summary: 'The event types, in the combined-events shape.',
        description:
          `${WHY} The same catalogue as GET /gatewayevents/types, as {name, eventTypeEnum (the number gtq takes), ` +
          `eventCategoryName: "Gateway Controller Event", description}. ${versionNote}`,
        querystring: CombinedTypesQuery,
        response: { 200: Answer('The event types, in the combined-events shape.', CombinedEventTypeList) },
      },
    },
    async (_request, reply) => sendJson(reply, TYPES_JSON),
  );

  app.get(
    '/combinedevents/facilities/:facilityId',
    {
      constraints,
      config: COMBINED_FILTERED,
      schema: {
        operationId: 'listFacilityCombinedEvents',
        tags,
        deprecated: legacy || undefined,
        summary: "A facility's events, newest first, in the combined-events shape.",
        description:
          `${WHY} Items differ from /gatewayevents: eventType is the type's **name** and eventTypeEnum its number; ` +
          'eventDetails, createdOn (facility wall clock, no offset), createdUtc, unitName (the unit number); ' +
          'eventCategory is always "Gateway Controller Event". Filters: gtq (event types; none: every type), ' +
          'uq (a unit id), vq (a visitor id), minDate (inclusive) and maxDate (exclusive) in Unix seconds, by default the ' +
          'last 12 hours. etq and itq (edge-router and IoT device types, families this service does not have) are ' +
          'accepted and match no event: naming types there and none in gtq answers no items; with gtq, gtq alone ' +
          `decides. Newest first, paged by pageSize (1–${MAX_PAGE_SIZE}, ` +
          `default ${DEFAULT_PAGE_SIZE}) and pageNumber, at most the newest ${MAX_COMBINED_RESULTS.toLocaleString('en-US')} ` +
          'events of the filter (totalResults counts up to that many). hideMetadata=true answers the items as a plain ' +
          'array. For complete walks and exports use /gatewayevents (cursor, CSV). ' +
          `${retentionNote(settings.retentionDays)} ${versionNote}`,
        params: FacilityParams,
        querystring: CombinedEventsQuery,
        response: {
          200: Answer(
            "A page of the facility's events (or, with hideMetadata=true, its items alone).",
            CombinedEventAnswer,
          ),
        },
      },
    },
    async (request, reply) => {
      const { query } = request;
      const filter = parseCombinedFilter(facilityScope(request), query, clock.now());
      const bare = query.hideMetadata?.toLowerCase() === 'true';
      const answer = await readCombinedPage(
        face.store,
        filter,
        query.pageSize ?? DEFAULT_PAGE_SIZE,
        query.pageNumber ?? 1,
        !bare,
      );
      return sendJson(reply, answer);
    },
  );
};

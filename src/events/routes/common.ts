// What the access-event routes share: who may call them, the versions each path exists in, the
// notes their descriptions repeat, and the small steps of rendering.
import { Type } from '@fastify/type-provider-typebox';
import type { Clock } from '../../clock.ts';
import { Answer } from '../../http/schemas.ts';
import { EVENT_TYPE_LIST, EVENT_TYPES } from '../catalogue.ts';
import { EventTypeList } from '../schemas.ts';
import type { EntityId } from '../../ids.ts';
import type { EventSettings, Events } from '../index.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { facilityOf } from '../../http/caller.ts';
import { onAccount, onFacility, scoped } from '../../http/access.ts';
import type { EventApiVersion } from '../../http/versioning.ts';
import type { EventScope } from '../query.ts';
import type { FieldError } from '../../errors.ts';
import { combinedFilterFaults, type FilterParams, filterFaults, legacyFilterFaults } from '../filters.ts';

/** What the events face's route plugins receive: the face, the clock that says what "now" is, the limits they describe. */
export interface EventRouteOptions {
  face: Events;
  clock: Clock;
  settings: EventSettings;
}

export const ACCOUNT_ACCESS = onAccount('accessevent:read');
export const FACILITY_ACCESS = onFacility('accessevent:read');
export const TYPES_ACCESS = scoped('accessevent:read');

// The routes that read a filter declare its rules as query rules too: validation.ts then names
// their faults in the same 400 as the schema's (`sort=up&startDate=yesterday`: both), and the
// handler's own parse (the same rules) finds nothing more.
/** An account route with the v3/v1.0 filter (facilityIds included). */
export const ACCOUNT_FILTERED = {
  ...ACCOUNT_ACCESS,
  queryRules: (request: FastifyRequest, faults: FieldError[]) => filterFaults('account', request.query, faults),
};
/** A facility route with the v3/v1.0 filter. */
export const FACILITY_FILTERED = {
  ...FACILITY_ACCESS,
  queryRules: (request: FastifyRequest, faults: FieldError[]) => filterFaults('facility', request.query, faults),
};
/** The legacy 2.0 facility route (minDate, maxDate in Unix seconds). */
export const LEGACY_FILTERED = {
  ...FACILITY_ACCESS,
  queryRules: (request: FastifyRequest, faults: FieldError[]) => legacyFilterFaults(request.query, faults),
};
/** The combined-events route (gtq, uq, vq, minDate, maxDate). */
export const COMBINED_FILTERED = {
  ...FACILITY_ACCESS,
  queryRules: (request: FastifyRequest, faults: FieldError[]) => combinedFilterFaults(request.query, faults),
};

// Which versions each route exists in: quoted by the 400 for a version it does not have.
const ROUTE_VERSIONS: Record<string, readonly EventApiVersion[]> = {
  '/gatewayevents/types': ['1.0', '3.0'],
  '/gatewayevents/accounts/:accountId': ['1.0', '3.0'],
  '/gatewayevents/facilities/:facilityId': ['1.0', '3.0'],
  '/gatewayevents/accounts/:accountId/export': ['3.0'],
  '/gatewayevents/facilities/:facilityId/export': ['3.0'],
  '/gatewayevents/accounts/:accountId/stream': ['3.0'],
  '/gatewayevents/facilities/:facilityId/stream': ['3.0'],
  '/events/types': ['2.0'],
  '/events/facilities/:facilityId': ['2.0'],
  '/combinedevents/types': ['2.0', '3.0'],
  '/combinedevents/facilities/:facilityId': ['2.0', '3.0'],
};
export const versionsOfRoute = (url: string) => ROUTE_VERSIONS[url] ?? ['3.0'];

export const retentionNote = (days: number) =>
  `Events older than the retention window (${days} days) are deleted and never returned.`;

export const V3_NOTE =
  'Version 3.0 (current, the default): name it with the api-version header or query parameter, or name none. ' +
  'Errors are application/problem+json; a 400 lists every invalid parameter.';

export const legacyNote = (version: string) =>
  `Deprecated (version ${version}): answers carry api-deprecated-versions and Deprecation headers; use version 3.0.`;

const JSON_TYPE = 'application/json; charset=utf-8';

/** Sends JSON written by render.ts or combined.ts (the route's response schema documents it). */
export const sendJson = (reply: FastifyReply, json: string | Buffer) =>
  reply.type(JSON_TYPE).send(typeof json === 'string' ? Buffer.from(json) : json);

/** The scope of a facility route (the guard has checked the facility is the token's). */
export function facilityScope(request: FastifyRequest): EventScope {
  const facility = facilityOf(request);
  return { kind: 'facility', facilityId: facility.id, accountId: facility.accountId };
}

/** The scope of an account route (the guard has checked the account is the token's). */
export const accountScope = (accountId: EntityId): EventScope => ({ kind: 'account', accountId });

/** The filter parameters of a query, without its paging. */
export function filterParams(query: FilterParams): FilterParams {
  const { eventTypes, facilityIds, unitIds, visitorIds, startDate, endDate, sort } = query;
  return { eventTypes, facilityIds, unitIds, visitorIds, startDate, endDate, sort };
}

/** The event types as a legacy version lists them (deprecated): the same list under that version's path. */
export function legacyTypesRoute(version: '1.0' | '2.0') {
  return {
    config: TYPES_ACCESS,
    schema: {
      tags: [`access events (${version})`],
      deprecated: true,
      operationId: 'listGatewayEventTypes',
      summary: 'The event types.',
      description: `${EVENT_TYPE_LIST}. ${legacyNote(version)}`,
      querystring: Type.Object({ 'api-version': Type.Optional(Type.String()) }),
      response: { 200: Answer('The event types, by number.', EventTypeList) },
    },
  };
}

export const listEventTypes = async () => [...EVENT_TYPES];

// GET /facilities, GET /facilities/detail?propertyNumber=, GET /facilities/{facilityId}: the
// facilities a PMS token sees.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { facilityOf, principalOf } from '../../http/caller.ts';
import { onFacility, scoped } from '../../http/access.ts';
import { Answer } from '../../http/schemas.ts';
import type { AccessControl } from '../index.ts';
import * as S from '../schemas.ts';

export const facilityRoutes: FastifyPluginAsyncTypebox<{ face: AccessControl }> = async (app, { face }) => {
  app.get(
    '/facilities',
    {
      config: scoped('accesscontrol:read'),
      schema: {
        operationId: 'listFacilities',
        tags: S.FACILITY_TAGS,
        summary: "The token's account's facilities.",
        response: { 200: Answer('The facilities.', Type.Array(S.Facility)) },
      },
    },
    async (request) => face.listFacilities(principalOf(request)),
  );

  app.get(
    '/facilities/detail',
    {
      config: scoped('accesscontrol:read'),
      schema: {
        operationId: 'listFacilityDetails',
        tags: S.FACILITY_TAGS,
        summary: 'The facility with a property number.',
        description:
          'How operators link a site to their PMS. 404 when no facility visible to the token has that number ' +
          "(another account's facility answers exactly the same).",
        querystring: S.PropertyNumberQuery,
        response: { 200: Answer('The facility.', S.Facility) },
      },
    },
    async (request) => face.facilityByPropertyNumber(principalOf(request), request.query.propertyNumber),
  );

  app.get(
    '/facilities/:facilityId',
    {
      config: onFacility('accesscontrol:read'),
      schema: {
        operationId: 'getFacility',
        tags: S.FACILITY_TAGS,
        summary: 'One facility.',
        params: S.FacilityParams,
        response: { 200: Answer('The facility.', S.Facility) },
      },
    },
    // The facility the guard loaded; the response schema keeps the view's fields.
    async (request) => facilityOf(request),
  );
};

// GET /facilities, GET /facilities/{facilityId}: the facilities a PMS token sees.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { facilityOf, principalOf } from '../../auth/guard.ts';
import { onFacility, scoped } from '../../http/access.ts';
import type { Services } from '../../services.ts';
import { listFacilities } from '../facilities.ts';
import * as S from '../schemas.ts';

export const facilityRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const db = services.database.db;

  app.get(
    '/facilities',
    {
      config: scoped('accesscontrol:read'),
      schema: {
        tags: S.FACILITY_TAGS,
        summary: "The token's account's facilities.",
        response: { 200: Type.Array(S.Facility) },
      },
    },
    async (request) => listFacilities(db, principalOf(request)),
  );

  app.get(
    '/facilities/:facilityId',
    {
      config: onFacility('accesscontrol:read'),
      schema: {
        tags: S.FACILITY_TAGS,
        summary: 'One facility.',
        params: S.FacilityParams,
        response: { 200: S.Facility },
      },
    },
    // The facility the guard loaded; the response schema keeps the view's fields.
    async (request) => facilityOf(request),
  );
};

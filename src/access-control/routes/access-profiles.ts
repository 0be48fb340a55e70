// GET /facilities/{facilityId}/accessprofiles: which access areas a visitor may enter.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { facilityOf } from '../../http/caller.ts';
import { onFacility } from '../../http/access.ts';
import { Answer } from '../../http/schemas.ts';
import type { Services } from '../../services.ts';
import { listAccessProfiles } from '../access-profiles.ts';
import * as S from '../schemas.ts';

export const accessProfileRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/facilities/:facilityId/accessprofiles',
    {
      config: onFacility('accesscontrol:read'),
      schema: {
        operationId: 'listAccessProfiles',
        tags: S.FACILITY_TAGS,
        summary: 'Access profiles: which access areas a visitor may enter ("All Access" is the default).',
        params: S.FacilityParams,
        response: { 200: Answer('The facility’s access profiles.', Type.Array(S.AccessProfile)) },
      },
    },
    async (request) => listAccessProfiles(services.database.db, facilityOf(request).id),
  );
};

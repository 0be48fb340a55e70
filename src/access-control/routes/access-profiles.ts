// GET /facilities/{facilityId}/accessprofiles: which access areas a visitor may enter.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { facilityOf } from '../../http/caller.ts';
import { onFacility } from '../../http/access.ts';
import { Answer } from '../../http/schemas.ts';
import type { AccessControl } from '../index.ts';
import * as S from '../schemas.ts';

export const accessProfileRoutes: FastifyPluginAsyncTypebox<{ face: AccessControl }> = async (app, { face }) => {
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
    async (request) => face.listAccessProfiles(facilityOf(request).id),
  );
};

// GET /facilities/{facilityId}/timegroups: when a visitor may enter.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { facilityOf } from '../../http/caller.ts';
import { onFacility } from '../../http/access.ts';
import { Answer } from '../../http/schemas.ts';
import type { AccessControl } from '../index.ts';
import * as S from '../schemas.ts';

export const timeGroupRoutes: FastifyPluginAsyncTypebox<{ face: AccessControl }> = async (app, { face }) => {
  app.get(
    '/facilities/:facilityId/timegroups',
    {
      config: onFacility('accesscontrol:read'),
      schema: {
        operationId: 'listTimeGroups',
        tags: S.FACILITY_TAGS,
        summary: 'Time groups: when a visitor may enter ("24 Hours" is the default).',
        params: S.FacilityParams,
        response: { 200: Answer('The facility’s time groups.', Type.Array(S.TimeGroup)) },
      },
    },
    async (request) => face.listTimeGroups(facilityOf(request).id),
  );
};

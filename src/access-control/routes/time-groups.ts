// GET /facilities/{facilityId}/timegroups: when a visitor may enter.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { facilityOf } from '../../http/caller.ts';
import { onFacility } from '../../http/access.ts';
import { Answer } from '../../http/schemas.ts';
import type { Services } from '../../services.ts';
import * as S from '../schemas.ts';
import { listTimeGroups } from '../time-groups.ts';

export const timeGroupRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
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
    async (request) => listTimeGroups(services.database.db, facilityOf(request).id),
  );
};

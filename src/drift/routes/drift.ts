// GET /facilities/{facilityId}/drift: what the facility's controller held that differed from the PMS,
// when it was found and when healed (SPEC §4.1 "Drift"), for the PMS and the console.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { onFacility } from '../../http/access.ts';
import { facilityOf } from '../../http/caller.ts';
import { Answer } from '../../http/schemas.ts';
import type { Drift } from '../index.ts';
import * as S from '../schemas.ts';

export const driftListRoutes: FastifyPluginAsyncTypebox<{ face: Drift }> = async (app, { face }) => {
  app.get(
    '/facilities/:facilityId/drift',
    {
      // The operator's console reads it too.
      config: onFacility('accesscontrol:read', 'admin'),
      schema: {
        operationId: 'listDrifts',
        tags: S.DRIFT_TAGS,
        summary: "The facility's drifts: what its controller held that differed from the PMS, found and healed.",
        description:
          'Newest first. A drift is open until the controller’s digest agrees with the PMS again (healed). Each ' +
          'item names a unit or visitor and how it differed — missing at the controller, unexpected there, or ' +
          'altered (the fields; never a gate code). Healed drifts are kept 180 days.',
        params: S.DriftParams,
        querystring: S.DriftQuery,
        response: { 200: Answer('The drifts, newest first.', Type.Array(S.Drift)) },
      },
    },
    async (request) => face.listDrifts(facilityOf(request).id, request.query),
  );
};

// /facilities/statuslist, /facilities/{facilityId}/status and …/devices (SPEC §4.1): every visible
// facility with its status words, a facility's status, and the devices its controller reported.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { facilityOf, principalOf } from '../../http/caller.ts';
import { onFacility, scoped } from '../../http/access.ts';
import { Answer } from '../../http/schemas.ts';
import type { FacilityStatus } from '../index.ts';
import * as S from '../schemas.ts';

export const statusRoutes: FastifyPluginAsyncTypebox<{ face: FacilityStatus }> = async (app, { face }) => {
  const tags = S.STATUS_TAGS;

  app.get(
    '/facilities/statuslist',
    {
      config: scoped(...S.READ),
      schema: {
        operationId: 'listFacilityStatuses',
        tags,
        summary: 'Every visible facility with its status words (the operator’s first screen).',
        description: `One row per facility, by name; an operator’s token sees every facility. ${S.STATUS_RULES_NOTE}`,
        response: { 200: Answer('One row per facility, by name.', Type.Array(S.StatusListRow)) },
      },
    },
    async (request) => face.statusList(principalOf(request)),
  );

  app.get(
    '/facilities/:facilityId/status',
    {
      config: onFacility(...S.READ),
      schema: {
        operationId: 'getFacilityStatus',
        tags,
        summary: 'The facility’s overall status, devices, alarms, switches and waiting commands.',
        description: `The overall status is the worst of the four parts, with their messages. ${S.STATUS_RULES_NOTE}`,
        params: S.FacilityParams,
        response: { 200: Answer('The facility’s status.', S.FacilityStatus) },
      },
    },
    async (request) => face.facilityStatus(facilityOf(request).id),
  );

  app.get(
    '/facilities/:facilityId/devices',
    {
      config: onFacility(...S.READ),
      schema: {
        operationId: 'listFacilityDevices',
        tags,
        summary: 'Every device the facility’s controller has reported, by name.',
        description:
          'Devices are learned from the deviceId and deviceName of the controller’s events; online/offline from ' +
          'events 11/12, pairing from 36/38. A device unpaired by event 38 stays listed with isPaired false.',
        params: S.FacilityParams,
        response: { 200: Answer('The devices, by name.', Type.Array(S.Device)) },
      },
    },
    async (request) => face.listDevices(facilityOf(request).id),
  );
};

// /facilities/{facilityId}/units: a facility's units — reads, create, the state actions
// (disable, enable, vacate, delete), a unit's visitors, and the deprecated full-state refresh.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { facilityOf } from '../../http/caller.ts';
import { onFacility } from '../../http/access.ts';
import { Answer } from '../../http/schemas.ts';
import type { AccessControl } from '../index.ts';
import type { UnitAction } from '../rules.ts';
import * as S from '../schemas.ts';
import { readerOf } from './visitors.ts';
import { Refused } from '../../http/problem.ts';

const VACANT_REFUSAL = Refused('UNIT_VACANT: the unit is Vacant.');

const unitActions: {
  action: Exclude<UnitAction, 'delete'>;
  operationId: string;
  summary: string;
  refusals: { 409?: typeof VACANT_REFUSAL };
}[] = [
  {
    action: 'disable',
    operationId: 'disableUnit',
    summary:
      'Disable a unit: Rented → Delinquent; its visitors are refused at the gate (event 17). 409 for a Vacant unit.',
    refusals: { 409: VACANT_REFUSAL },
  },
  {
    action: 'enable',
    operationId: 'enableUnit',
    summary: 'Enable a unit: Delinquent → Rented. 409 for a Vacant unit.',
    refusals: { 409: VACANT_REFUSAL },
  },
  {
    action: 'vacate',
    operationId: 'vacateUnit',
    summary: 'Vacate a unit: → Vacant; every visitor of the unit is removed.',
    refusals: {},
  },
];

export const unitRoutes: FastifyPluginAsyncTypebox<{ face: AccessControl }> = async (app, { face }) => {
  app.get(
    '/facilities/:facilityId/units',
    {
      config: onFacility('accesscontrol:read'),
      schema: {
        operationId: 'listUnits',
        tags: S.FACILITY_TAGS,
        summary: "The facility's units, by unit number.",
        params: S.FacilityParams,
        querystring: Type.Object(S.PageQuery),
        response: { 200: Answer('The facility’s units, a page of them.', Type.Array(S.Unit)) },
      },
    },
    async (request) => face.listUnits(facilityOf(request), request.query),
  );

  app.post(
    '/facilities/:facilityId/units',
    {
      config: onFacility('accesscontrol:write'),
      schema: {
        operationId: 'createUnit',
        tags: S.FACILITY_TAGS,
        summary: 'Create a unit (status Vacant).',
        description: `${S.COMMAND_NOTE} 400 UNIT_NUMBER_TAKEN (naming unitNumber) when the facility has a unit with that number.`,
        params: S.FacilityParams,
        querystring: S.ChangeQuery,
        body: S.CreateUnitBody,
        response: { 201: Answer('The unit, created (Vacant).', S.Unit) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await face.createUnit(facilityOf(request), request.body, S.suppressed(request))),
  );

  app.get(
    '/facilities/:facilityId/units/:unitId',
    {
      config: onFacility('accesscontrol:read'),
      schema: {
        operationId: 'getUnit',
        tags: S.FACILITY_TAGS,
        summary: 'One unit.',
        params: S.UnitParams,
        response: { 200: Answer('The unit.', S.Unit) },
      },
    },
    async (request) => face.getUnit(facilityOf(request), request.params.unitId),
  );

  for (const { action, operationId, summary, refusals } of unitActions) {
    app.post(
      `/facilities/:facilityId/units/:unitId/${action}`,
      {
        config: onFacility('accesscontrol:write'),
        schema: {
          operationId,
          tags: S.FACILITY_TAGS,
          summary,
          description: `${S.COMMAND_NOTE} ${S.REPEAT_NOTE} No body needed.`,
          params: S.UnitParams,
          querystring: S.ChangeQuery,
          body: S.ActionBody,
          response: { 200: Answer('The unit, in its new state.', S.Unit), ...refusals },
        },
      },
      async (request) => {
        const unit = await face.actOnUnit(facilityOf(request), request.params.unitId, action, S.suppressed(request));
        return unit!; // only delete answers no unit
      },
    );
  }

  app.post(
    '/facilities/:facilityId/units/:unitId/delete/vacant',
    {
      config: onFacility('accesscontrol:write'),
      schema: {
        operationId: 'deleteVacantUnit',
        tags: S.FACILITY_TAGS,
        summary: 'Delete a Vacant unit.',
        description:
          `${S.COMMAND_NOTE} 409 UNIT_OCCUPIED for a Rented or Delinquent unit (vacate it first). ` +
          'Answers 200 with the JSON body true, as the PMS integrations written for such APIs expect. No body needed.',
        params: S.UnitParams,
        querystring: S.ChangeQuery,
        body: S.ActionBody,
        response: {
          200: Answer('The unit is deleted: the JSON body true.', Type.Literal(true)),
          409: Refused('UNIT_OCCUPIED: the unit is Rented or Delinquent; vacate it first.'),
        },
      },
    },
    async (request) => {
      await face.actOnUnit(facilityOf(request), request.params.unitId, 'delete', S.suppressed(request));
      return true as const;
    },
  );

  app.get(
    '/facilities/:facilityId/units/:unitId/visitors',
    {
      config: onFacility('accesscontrol:read'),
      schema: {
        operationId: 'listUnitVisitors',
        tags: S.FACILITY_TAGS,
        summary: "A unit's visitors.",
        description: S.CODES_NOTE,
        params: S.UnitParams,
        response: { 200: Answer('The unit’s visitors.', Type.Array(S.Visitor)) },
      },
    },
    async (request) => face.listUnitVisitors(facilityOf(request), readerOf(request), request.params.unitId),
  );

  app.post(
    '/facilities/:facilityId/units/refresh',
    {
      config: onFacility('accesscontrol:write'),
      schema: S.refreshSchema(
        'refreshUnits',
        'Send the controller every unit of the facility, as one command (deprecated).',
      ),
    },
    async (request, reply) => reply.code(202).send(await face.refresh(facilityOf(request), 'units')),
  );
};

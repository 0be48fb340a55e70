// /facilities/{facilityId}/visitors: a facility's visitors — reads (codes only with the scope
// accesscontrol:codes, audited), create, update, remove, disable/enable, and the deprecated
// full-state refresh.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { facilityOf, principalOf } from '../../http/caller.ts';
import { onFacility } from '../../http/access.ts';
import { Refused } from '../../http/problem.ts';
import { Answer } from '../../http/schemas.ts';
import type { AccessControl } from '../index.ts';
import type { Reader } from '../code-reads.ts';
import * as S from '../schemas.ts';

/** Who reads visitors through this request: a code read's audit record names them. */
export const readerOf = (request: FastifyRequest): Reader => ({
  principal: principalOf(request),
  requestId: request.id,
  route: `${request.method} ${request.routeOptions.url}`,
});

export const visitorRoutes: FastifyPluginAsyncTypebox<{ face: AccessControl }> = async (app, { face }) => {
  app.get(
    '/facilities/:facilityId/visitors',
    {
      config: onFacility('accesscontrol:read'),
      schema: {
        operationId: 'listVisitors',
        tags: S.FACILITY_TAGS,
        summary: "The facility's visitors, by unit number and name.",
        description: `${S.CODES_NOTE} ?unitNumber= narrows to that unit's visitors.`,
        params: S.FacilityParams,
        querystring: Type.Object({
          unitNumber: Type.Optional(
            Type.String({ minLength: 1, maxLength: 50, description: 'Only this unit’s visitors.' }),
          ),
          ...S.PageQuery,
        }),
        response: {
          200: Answer(
            'The facility’s visitors, a page of them.',
            Type.Array(S.Visitor, { examples: [S.VISITORS_EXAMPLE] }),
          ),
        },
      },
    },
    async (request) => face.listVisitors(facilityOf(request), readerOf(request), request.query),
  );

  app.post(
    '/facilities/:facilityId/visitors',
    {
      config: onFacility('accesscontrol:write'),
      schema: {
        operationId: 'createVisitor',
        tags: S.FACILITY_TAGS,
        summary: 'Create a visitor with a gate code; a tenant makes a Vacant unit Rented.',
        description:
          `${S.COMMAND_NOTE} Answers 201 {visitor, unit} (unit null for a visitor without one). ` +
          "404 UNIT_NOT_FOUND for a unit that is not this facility's; " +
          '400 ACCESS_CODE_IN_USE (naming accessCode) when an enabled visitor of the facility has the code; ' +
          '400 naming unitId for a tenant without a unit; ' +
          `409 UNIT_VACANT for a visitor who is not a tenant on a Vacant unit. ${S.CONFLICT_NOTE}`,
        params: S.FacilityParams,
        querystring: S.ChangeQuery,
        body: S.CreateVisitorBody,
        response: {
          201: Answer(
            'The visitor, created, and their unit as it now is (null for a visitor without one).',
            S.VisitorWithUnit,
          ),
          409: Refused('UNIT_VACANT: a visitor who is not a tenant on a Vacant unit.'),
        },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(await face.createVisitor(facilityOf(request), readerOf(request), request.body, S.suppressed(request))),
  );

  app.get(
    '/facilities/:facilityId/visitors/:visitorId',
    {
      config: onFacility('accesscontrol:read'),
      schema: {
        operationId: 'getVisitor',
        tags: S.FACILITY_TAGS,
        summary: 'One visitor.',
        description: S.CODES_NOTE,
        params: S.VisitorParams,
        response: { 200: Answer('The visitor.', S.Visitor) },
      },
    },
    async (request) => face.getVisitor(facilityOf(request), readerOf(request), request.params.visitorId),
  );

  app.post(
    '/facilities/:facilityId/visitors/:visitorId/update',
    {
      config: onFacility('accesscontrol:write'),
      schema: {
        operationId: 'updateVisitor',
        tags: S.FACILITY_TAGS,
        summary: "Change a visitor's fields (those given; extendedData is replaced whole).",
        description:
          `${S.COMMAND_NOTE} An update always sends the visitor's state to the controller. ` +
          `400 ACCESS_CODE_IN_USE, 409 UNIT_VACANT as for create. ${S.CONFLICT_NOTE}`,
        params: S.VisitorParams,
        querystring: S.ChangeQuery,
        body: S.UpdateVisitorBody,
        response: {
          200: Answer('The visitor, updated.', S.Visitor),
          409: Refused(
            'UNIT_VACANT as for create, or CONCURRENT_CHANGE: another request moved the visitor at the same moment (retry).',
          ),
        },
      },
    },
    async (request) =>
      face.updateVisitor(
        facilityOf(request),
        readerOf(request),
        request.params.visitorId,
        request.body,
        S.suppressed(request),
      ),
  );

  app.post(
    '/facilities/:facilityId/visitors/:visitorId/remove',
    {
      config: onFacility('accesscontrol:write'),
      schema: {
        operationId: 'removeVisitor',
        tags: S.FACILITY_TAGS,
        summary: 'Remove a visitor: their code stops opening the gate.',
        description: `${S.COMMAND_NOTE} Answers 204. No body needed.`,
        params: S.VisitorParams,
        querystring: S.ChangeQuery,
        body: S.ActionBody,
        response: { 204: Answer('The visitor is removed (no body).', Type.Null()) },
      },
    },
    async (request, reply) => {
      await face.removeVisitor(facilityOf(request), request.params.visitorId, S.suppressed(request));
      return reply.code(204).send(null);
    },
  );

  const switches = {
    disable: {
      operationId: 'disableVisitor',
      summary: 'Lock a visitor out (isEnabled false).',
      refusal: '',
      refused: {},
    },
    enable: {
      operationId: 'enableVisitor',
      summary: 'Restore a visitor (isEnabled true).',
      refusal: ` 409 ACCESS_CODE_IN_USE when another enabled visitor now has this visitor’s code. ${S.CONFLICT_NOTE}`,
      refused: {
        409: Refused('ACCESS_CODE_IN_USE: another enabled visitor now has this visitor’s code; give a new one first.'),
      },
    },
  };
  for (const action of ['disable', 'enable'] as const) {
    app.post(
      `/facilities/:facilityId/visitors/:visitorId/${action}`,
      {
        config: onFacility('accesscontrol:write'),
        schema: {
          operationId: switches[action].operationId,
          tags: S.FACILITY_TAGS,
          summary: switches[action].summary,
          description: `${S.COMMAND_NOTE} ${S.REPEAT_NOTE} No body needed.${switches[action].refusal}`,
          params: S.VisitorParams,
          querystring: S.ChangeQuery,
          body: S.ActionBody,
          response: { 200: Answer('The visitor, in its new state.', S.Visitor), ...switches[action].refused },
        },
      },
      async (request) =>
        face.switchVisitorAccess(
          facilityOf(request),
          readerOf(request),
          request.params.visitorId,
          action,
          S.suppressed(request),
        ),
    );
  }

  app.post(
    '/facilities/:facilityId/visitors/refresh',
    {
      config: onFacility('accesscontrol:write'),
      schema: S.refreshSchema(
        'refreshVisitors',
        'Send the controller every visitor of the facility, with codes, as one command (deprecated).',
      ),
    },
    async (request, reply) => reply.code(202).send(await face.refresh(facilityOf(request), 'visitors')),
  );
};

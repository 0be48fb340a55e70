// /facilities/{facilityId}/visitors: a facility's visitors — reads (never their codes), create,
// update, remove, disable/enable, and the deprecated full-state refresh.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { facilityOf } from '../../auth/guard.ts';
import { onFacility } from '../../http/access.ts';
import type { Services } from '../../services.ts';
import { refresh } from '../refresh.ts';
import * as S from '../schemas.ts';
import {
  createVisitor,
  getVisitor,
  listVisitors,
  removeVisitor,
  switchVisitorAccess,
  updateVisitor,
} from '../visitors.ts';

export const visitorRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const ac = services.accessControl;
  const db = services.database.db;

  app.get(
    '/facilities/:facilityId/visitors',
    {
      config: onFacility('accesscontrol:read'),
      schema: {
        tags: S.FACILITY_TAGS,
        summary: "The facility's visitors (never their codes).",
        params: S.FacilityParams,
        querystring: Type.Object(S.PageQuery),
        response: { 200: Type.Array(S.Visitor) },
      },
    },
    async (request) => listVisitors(db, facilityOf(request).id, request.query),
  );

  app.post(
    '/facilities/:facilityId/visitors',
    {
      config: onFacility('accesscontrol:write'),
      schema: {
        tags: S.FACILITY_TAGS,
        summary: 'Create a visitor with a gate code; a tenant makes a Vacant unit Rented.',
        description:
          `${S.COMMAND_NOTE} Answers 201 {visitor, unit}. 404 UNIT_NOT_FOUND for a unit that is not this facility's; ` +
          '409 ACCESS_CODE_IN_USE when an enabled visitor of the facility has the code; ' +
          '409 UNIT_VACANT for a visitor who is not a tenant on a Vacant unit.',
        params: S.FacilityParams,
        querystring: S.ChangeQuery,
        body: S.CreateVisitorBody,
        response: { 201: S.VisitorWithUnit },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createVisitor(ac, facilityOf(request), request.body, S.suppressed(request))),
  );

  app.get(
    '/facilities/:facilityId/visitors/:visitorId',
    {
      config: onFacility('accesscontrol:read'),
      schema: {
        tags: S.FACILITY_TAGS,
        summary: 'One visitor (never the code).',
        params: S.VisitorParams,
        response: { 200: S.Visitor },
      },
    },
    async (request) => getVisitor(db, facilityOf(request).id, request.params.visitorId),
  );

  app.post(
    '/facilities/:facilityId/visitors/:visitorId/update',
    {
      config: onFacility('accesscontrol:write'),
      schema: {
        tags: S.FACILITY_TAGS,
        summary: "Change a visitor's fields (those given; extendedData is replaced whole).",
        description:
          `${S.COMMAND_NOTE} An update always sends the visitor's state to the controller. ` +
          '409 ACCESS_CODE_IN_USE, UNIT_VACANT as for create.',
        params: S.VisitorParams,
        querystring: S.ChangeQuery,
        body: S.UpdateVisitorBody,
        response: { 200: S.Visitor },
      },
    },
    async (request) =>
      updateVisitor(ac, facilityOf(request), request.params.visitorId, request.body, S.suppressed(request)),
  );

  app.post(
    '/facilities/:facilityId/visitors/:visitorId/remove',
    {
      config: onFacility('accesscontrol:write'),
      schema: {
        tags: S.FACILITY_TAGS,
        summary: 'Remove a visitor: their code stops opening the gate.',
        description: `${S.COMMAND_NOTE} Answers 204. No body needed.`,
        params: S.VisitorParams,
        querystring: S.ChangeQuery,
        body: S.ActionBody,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await removeVisitor(ac, facilityOf(request), request.params.visitorId, S.suppressed(request));
      return reply.code(204).send(null);
    },
  );

  const switches = {
    disable: { summary: 'Lock a visitor out (isEnabled false).', refusal: '' },
    enable: {
      summary: 'Restore a visitor (isEnabled true).',
      refusal: ' 409 ACCESS_CODE_IN_USE when another enabled visitor now has this visitor’s code.',
    },
  };
  for (const action of ['disable', 'enable'] as const) {
    app.post(
      `/facilities/:facilityId/visitors/:visitorId/${action}`,
      {
        config: onFacility('accesscontrol:write'),
        schema: {
          tags: S.FACILITY_TAGS,
          summary: switches[action].summary,
          description: `${S.COMMAND_NOTE} ${S.REPEAT_NOTE} No body needed.${switches[action].refusal}`,
          params: S.VisitorParams,
          querystring: S.ChangeQuery,
          body: S.ActionBody,
          response: { 200: S.Visitor },
        },
      },
      async (request) =>
        switchVisitorAccess(ac, facilityOf(request), request.params.visitorId, action, S.suppressed(request)),
    );
  }

  app.post(
    '/facilities/:facilityId/visitors/refresh',
    {
      config: onFacility('accesscontrol:write'),
      schema: S.refreshSchema(
        'Send the controller every visitor of the facility, with codes, as one command (deprecated).',
      ),
    },
    async (request, reply) => reply.code(202).send(await refresh(ac, facilityOf(request), 'visitors')),
  );
};

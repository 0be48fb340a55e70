// The access-control face (/facilities): units, visitors, time groups, access profiles, commands.
// Thin: each handler parses, calls units.ts / visitors.ts / commands.ts, and answers. Lists are
// plain JSON arrays, as PMS integrations of such APIs expect. Compatibility (SPEC §4): bodies sent
// as application/json-patch+json are JSON; action routes accept an empty body; an
// `api-version: 2.0` header is accepted on every call (and not required).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { facilityOf, principalOf } from '../auth/guard.ts';
import type { Scope } from '../http/access.ts';
import { notFound } from '../errors.ts';
import { handleError, sendProblem } from '../http/problem.ts';
import type { Services } from '../services.ts';
import { getCommand, listCommands } from './commands.ts';
import type { UnitAction } from './rules.ts';
import * as S from './schemas.ts';
import { actOnUnit, createUnit, getUnit, listUnits, refreshUnits } from './units.ts';
import {
  ACCESS_CODE_RULE,
  createVisitor,
  getVisitor,
  listAccessProfiles,
  listTimeGroups,
  listVisitors,
  refreshVisitors,
  removeVisitor,
  switchVisitorAccess,
  updateVisitor,
} from './visitors.ts';

const access = (scope: Scope) => ({ access: { scopes: [scope], facilityParam: 'facilityId' } });
const READ = access('accesscontrol:read');
const WRITE = access('accesscontrol:write');
const facilityTags = ['access control'];
const commandTags = ['access control: commands'];

const COMMAND_NOTE =
  'The change writes one command for the facility’s gateway controller in the same transaction (none with the deprecated suppressCommands).';
const REPEAT_NOTE = 'Repeating an action whose result already holds answers 200 with the resource unchanged and sends no command.';

/** suppressCommands=true as a query flag or a body field. */
const suppressed = (request: { query: { suppressCommands?: boolean }; body: unknown }) =>
  request.query.suppressCommands === true || (request.body as { suppressCommands?: unknown } | null | undefined)?.suppressCommands === true;

export const accessControlRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const ac = services.accessControl;
  const db = services.database.db;

  // Bodies: JSON, also as application/json-patch+json; an empty body is no body (action routes).
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(['application/json', 'application/json-patch+json'], { parseAs: 'string' }, (request, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, null);
    json(request, body as string, done);
  });

  // The code's rule in words, instead of the schema's pattern.
  app.setErrorHandler((error, request, reply: FastifyReply) => {
    const normalized = handleError(error, request);
    normalized.errors = normalized.errors.map((e) => (e.path === 'accessCode' && normalized.code === 'VALIDATION_FAILED' ? { path: e.path, message: ACCESS_CODE_RULE } : e));
    return sendProblem(reply, normalized);
  });

  // ---- facilities ----

  app.get(
    '/facilities',
    {
      config: { access: { scopes: ['accesscontrol:read'] } },
      schema: { tags: facilityTags, summary: "The token's account's facilities.", response: { 200: Type.Array(S.Facility) } },
    },
    async (request) => {
      const principal = principalOf(request);
      if (principal.kind !== 'account') return [];
      const rows = await db.selectFrom('facilities').select(['id', 'account_id', 'name', 'property_number', 'time_zone']).where('account_id', '=', principal.accountId).orderBy('name').orderBy('id').execute();
      return rows.map((r) => ({ id: r.id, accountId: r.account_id, name: r.name, propertyNumber: r.property_number, timeZone: r.time_zone }));
    },
  );

  app.get(
    '/facilities/:facilityId',
    { config: READ, schema: { tags: facilityTags, summary: 'One facility.', params: S.FacilityParams, response: { 200: S.Facility } } },
    async (request) => {
      const f = facilityOf(request);
      return { id: f.id, accountId: f.accountId, name: f.name, propertyNumber: f.propertyNumber, timeZone: f.timeZone };
    },
  );

  // ---- units ----

  app.get(
    '/facilities/:facilityId/units',
    {
      config: READ,
      schema: { tags: facilityTags, summary: "The facility's units, by unit number.", params: S.FacilityParams, querystring: Type.Object(S.PageQuery), response: { 200: Type.Array(S.Unit) } },
    },
    async (request) => listUnits(db, facilityOf(request).id, request.query),
  );

  app.post(
    '/facilities/:facilityId/units',
    {
      config: WRITE,
      schema: {
        tags: facilityTags,
        summary: 'Create a unit (status Vacant).',
        description: `${COMMAND_NOTE} 409 UNIT_NUMBER_TAKEN when the facility has a unit with that number.`,
        params: S.FacilityParams,
        querystring: S.ChangeQuery,
        body: S.CreateUnitBody,
        response: { 201: S.Unit },
      },
    },
    async (request, reply) => reply.code(201).send(await createUnit(ac, facilityOf(request), request.body, suppressed(request))),
  );

  app.get(
    '/facilities/:facilityId/units/:unitId',
    { config: READ, schema: { tags: facilityTags, summary: 'One unit.', params: S.UnitParams, response: { 200: S.Unit } } },
    async (request) => getUnit(db, facilityOf(request).id, request.params.unitId),
  );

  const unitActions: { path: string; action: UnitAction; summary: string }[] = [
    { path: 'disable', action: 'disable', summary: 'Disable a unit: Rented → Delinquent; its visitors are refused at the gate (event 17). 409 for a Vacant unit.' },
    { path: 'enable', action: 'enable', summary: 'Enable a unit: Delinquent → Rented. 409 for a Vacant unit.' },
    { path: 'vacate', action: 'vacate', summary: 'Vacate a unit: → Vacant; every visitor of the unit is removed.' },
  ];
  for (const { path, action, summary } of unitActions) {
    app.post(
      `/facilities/:facilityId/units/:unitId/${path}`,
      {
        config: WRITE,
        schema: { tags: facilityTags, summary, description: `${COMMAND_NOTE} ${REPEAT_NOTE} No body needed.`, params: S.UnitParams, querystring: S.ChangeQuery, body: S.ActionBody, response: { 200: S.Unit } },
      },
      async (request) => (await actOnUnit(ac, facilityOf(request), request.params.unitId, action, suppressed(request)))!,
    );
  }

  app.post(
    '/facilities/:facilityId/units/:unitId/delete/vacant',
    {
      config: WRITE,
      schema: {
        tags: facilityTags,
        summary: 'Delete a Vacant unit.',
        description: `${COMMAND_NOTE} 409 UNIT_OCCUPIED for a Rented or Delinquent unit (vacate it first). Answers 204. No body needed.`,
        params: S.UnitParams,
        querystring: S.ChangeQuery,
        body: S.ActionBody,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await actOnUnit(ac, facilityOf(request), request.params.unitId, 'delete', suppressed(request));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/facilities/:facilityId/units/:unitId/visitors',
    { config: READ, schema: { tags: facilityTags, summary: "A unit's visitors.", params: S.UnitParams, response: { 200: Type.Array(S.Visitor) } } },
    async (request) => {
      const unit = await getUnit(db, facilityOf(request).id, request.params.unitId);
      return listVisitors(db, unit.facilityId, { unitId: unit.id });
    },
  );

  app.post(
    '/facilities/:facilityId/units/refresh',
    {
      config: WRITE,
      schema: {
        tags: facilityTags,
        deprecated: true,
        summary: 'Send the controller every unit of the facility, as one command (deprecated).',
        description: 'Slated for revision: plain changes already reach the controller one command each; use this only after changes made with suppressCommands. Answers 202 with the command. No body needed.',
        params: S.FacilityParams,
        body: S.ActionBody,
        response: { 202: S.RefreshResult },
      },
    },
    async (request, reply) => reply.code(202).send(await refreshUnits(ac, facilityOf(request))),
  );

  // ---- visitors ----

  app.get(
    '/facilities/:facilityId/visitors',
    {
      config: READ,
      schema: {
        tags: facilityTags,
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
      config: WRITE,
      schema: {
        tags: facilityTags,
        summary: 'Create a visitor with a gate code; a tenant makes a Vacant unit Rented.',
        description: `${COMMAND_NOTE} Answers 201 {visitor, unit}. 404 UNIT_NOT_FOUND for a unit that is not this facility's; 409 ACCESS_CODE_IN_USE when an enabled visitor of the facility has the code; 409 UNIT_VACANT for a visitor who is not a tenant on a Vacant unit.`,
        params: S.FacilityParams,
        querystring: S.ChangeQuery,
        body: S.CreateVisitorBody,
        response: { 201: S.VisitorWithUnit },
      },
    },
    async (request, reply) => reply.code(201).send(await createVisitor(ac, facilityOf(request), request.body, suppressed(request))),
  );

  app.get(
    '/facilities/:facilityId/visitors/:visitorId',
    { config: READ, schema: { tags: facilityTags, summary: 'One visitor (never the code).', params: S.VisitorParams, response: { 200: S.Visitor } } },
    async (request) => getVisitor(db, facilityOf(request).id, request.params.visitorId),
  );

  app.post(
    '/facilities/:facilityId/visitors/:visitorId/update',
    {
      config: WRITE,
      schema: {
        tags: facilityTags,
        summary: "Change a visitor's fields (those given; extendedData is replaced whole).",
        description: `${COMMAND_NOTE} An update always sends the visitor's state to the controller. 409 ACCESS_CODE_IN_USE, UNIT_VACANT as for create.`,
        params: S.VisitorParams,
        querystring: S.ChangeQuery,
        body: S.UpdateVisitorBody,
        response: { 200: S.Visitor },
      },
    },
    async (request) => updateVisitor(ac, facilityOf(request), request.params.visitorId, request.body, suppressed(request)),
  );

  app.post(
    '/facilities/:facilityId/visitors/:visitorId/remove',
    {
      config: WRITE,
      schema: {
        tags: facilityTags,
        summary: 'Remove a visitor: their code stops opening the gate.',
        description: `${COMMAND_NOTE} Answers 204. No body needed.`,
        params: S.VisitorParams,
        querystring: S.ChangeQuery,
        body: S.ActionBody,
        response: { 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await removeVisitor(ac, facilityOf(request), request.params.visitorId, suppressed(request));
      return reply.code(204).send(null);
    },
  );

  for (const action of ['disable', 'enable'] as const) {
    app.post(
      `/facilities/:facilityId/visitors/:visitorId/${action}`,
      {
        config: WRITE,
        schema: {
          tags: facilityTags,
          summary: action === 'disable' ? 'Lock a visitor out (isEnabled false).' : 'Restore a visitor (isEnabled true).',
          description: `${COMMAND_NOTE} ${REPEAT_NOTE} No body needed.${action === 'enable' ? ' 409 ACCESS_CODE_IN_USE when another enabled visitor now has this visitor’s code.' : ''}`,
          params: S.VisitorParams,
          querystring: S.ChangeQuery,
          body: S.ActionBody,
          response: { 200: S.Visitor },
        },
      },
      async (request) => switchVisitorAccess(ac, facilityOf(request), request.params.visitorId, action, suppressed(request)),
    );
  }

  app.post(
    '/facilities/:facilityId/visitors/refresh',
    {
      config: WRITE,
      schema: {
        tags: facilityTags,
        deprecated: true,
        summary: 'Send the controller every visitor of the facility, with codes, as one command (deprecated).',
        description: 'Slated for revision: plain changes already reach the controller one command each; use this only after changes made with suppressCommands. Answers 202 with the command. No body needed.',
        params: S.FacilityParams,
        body: S.ActionBody,
        response: { 202: S.RefreshResult },
      },
    },
    async (request, reply) => reply.code(202).send(await refreshVisitors(ac, facilityOf(request))),
  );

  // ---- time groups, access profiles ----

  app.get(
    '/facilities/:facilityId/timegroups',
    {
      config: READ,
      schema: { tags: facilityTags, summary: 'Time groups: when a visitor may enter ("24 Hours" is the default).', params: S.FacilityParams, response: { 200: Type.Array(S.TimeGroup) } },
    },
    async (request) => listTimeGroups(db, facilityOf(request).id),
  );

  app.get(
    '/facilities/:facilityId/accessprofiles',
    {
      config: READ,
      schema: {
        tags: facilityTags,
        summary: 'Access profiles: which access areas a visitor may enter ("All Access" is the default).',
        params: S.FacilityParams,
        response: { 200: Type.Array(S.AccessProfile) },
      },
    },
    async (request) => listAccessProfiles(db, facilityOf(request).id),
  );

  // ---- commands ----

  app.get(
    '/facilities/:facilityId/commands',
    {
      config: READ,
      schema: {
        tags: commandTags,
        summary: "The facility's commands for its controller, by sequence, with their status.",
        description:
          'pending → delivered (the controller fetched it) → acknowledged (its event 3 came back); expired when not acknowledged within 7 days. Gate codes are left out. Page with after = the last sequence seen; commands are kept 30 days.',
        params: S.FacilityParams,
        querystring: S.CommandsQuery,
        response: { 200: Type.Array(S.Command) },
      },
    },
    async (request) => listCommands(db, facilityOf(request).id, { after: request.query.after ?? 0, limit: request.query.limit ?? 100, status: request.query.status }),
  );

  app.get(
    '/facilities/:facilityId/commands/:commandId',
    { config: READ, schema: { tags: commandTags, summary: 'One command and its status.', params: S.CommandParams, response: { 200: S.Command } } },
    async (request) => {
      const { commandId } = request.params;
      const command = /^[0-9a-f-]{36}$/i.test(commandId) ? await getCommand(db, facilityOf(request).id, commandId) : null;
      if (!command) throw notFound('The command');
      return command;
    },
  );
};

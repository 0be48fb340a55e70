// /facilities/{facilityId}/commands: what the facility's controller was told, with the status of
// each, for the PMS (gate codes left out).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { facilityOf } from '../../http/caller.ts';
import { onFacility } from '../../http/access.ts';
import { Answer } from '../../http/schemas.ts';
import type { Commands } from '../index.ts';
import * as S from '../schemas.ts';

export const commandListRoutes: FastifyPluginAsyncTypebox<{ face: Commands }> = async (app, { face }) => {
  app.get(
    '/facilities/:facilityId/commands',
    {
      config: onFacility('accesscontrol:read', 'admin'),
      schema: {
        operationId: 'listCommands',
        tags: S.COMMAND_TAGS,
        summary: "The facility's commands for its controller, by sequence, with their status.",
        description:
          'pending → delivered (the controller fetched it) → acknowledged (its event 3 came back); ' +
          'expired when not acknowledged within 7 days. Gate codes are left out. ' +
          'Page with after = the last sequence seen; commands are kept 30 days.',
        params: S.FacilityParams,
        querystring: S.CommandsQuery,
        response: { 200: Answer('The commands, by sequence.', Type.Array(S.Command)) },
      },
    },
    async (request) => face.listCommands(facilityOf(request).id, request.query),
  );

  app.get(
    '/facilities/:facilityId/commands/:commandId',
    {
      config: onFacility('accesscontrol:read', 'admin'),
      schema: {
        operationId: 'getCommand',
        tags: S.COMMAND_TAGS,
        summary: 'One command and its status.',
        params: S.CommandParams,
        response: { 200: Answer('The command.', S.Command) },
      },
    },
    async (request) => face.getCommand(facilityOf(request).id, request.params.commandId),
  );
};

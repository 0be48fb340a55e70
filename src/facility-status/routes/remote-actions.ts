// /facilities/{facilityId}/remote-actions (SPEC §4.1, issue 28): every emergency, lockdown and
// action-group request — who asked, when, why — with its command's status as its result.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { facilityOf } from '../../http/caller.ts';
import { onFacility } from '../../http/access.ts';
import { Answer } from '../../http/schemas.ts';
import type { FacilityStatus } from '../index.ts';
import * as S from '../schemas.ts';

export const remoteActionRoutes: FastifyPluginAsyncTypebox<{ face: FacilityStatus }> = async (app, { face }) => {
  app.get(
    '/facilities/:facilityId/remote-actions',
    {
      config: onFacility(...S.READ),
      schema: {
        operationId: 'listRemoteActions',
        tags: S.STATUS_TAGS,
        summary:
          'The facility’s remote actions (emergency, lockdown, action groups), newest first, with their results.',
        description:
          'Each request is recorded: the action, the action group, who asked (requestedBy: the credential, the ' +
          'application and the account of the token; an operator has no account), when, the reason given, and its ' +
          'command, whose status is the result (pending, delivered, acknowledged, failed with the controller’s ' +
          'reason, expired). A repeated emergency/lockdown request that wrote no command is recorded too, pointing ' +
          'at the command underway (wroteCommand false). Page with before = the last id of a page (an id that is ' +
          'not one of the facility’s remote actions gives an empty page). Kept 30 days, as commands are.',
        params: S.FacilityParams,
        querystring: S.RemoteActionsQuery,
        response: { 200: Answer('The remote actions, newest first.', Type.Array(S.RemoteAction)) },
      },
    },
    async (request) => face.listRemoteActions(facilityOf(request).id, request.query),
  );
};

// /facilities/{facilityId}/actiongroups (SPEC §4.1): the facility's manual action groups, and the
// remote actions that run one (open, hold, close). The operator's list and create are in
// admin-action-groups.ts.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { facilityOf, principalOf } from '../../http/caller.ts';
import { onFacility } from '../../http/access.ts';
import { Answer } from '../../http/schemas.ts';
import { ACTION_GROUP_ACTIONS, type FacilityStatus, remoteActionRequest } from '../index.ts';
import * as S from '../schemas.ts';

export const actionGroupRoutes: FastifyPluginAsyncTypebox<{ face: FacilityStatus }> = async (app, { face }) => {
  const tags = S.STATUS_TAGS;

  app.get(
    '/facilities/:facilityId/actiongroups/manual',
    {
      config: onFacility(...S.READ),
      schema: {
        operationId: 'listManualActionGroups',
        tags,
        summary: 'The facility’s manually triggered action groups (every facility starts with "Main Gate").',
        params: S.FacilityParams,
        response: { 200: Answer('The manual action groups.', Type.Array(S.ActionGroup)) },
      },
    },
    async (request) => face.listManualActionGroups(facilityOf(request).id),
  );

  for (const action of ACTION_GROUP_ACTIONS) {
    app.post(
      `/facilities/:facilityId/actiongroups/:actionGroupId/${action}`,
      {
        config: onFacility(...S.WRITE),
        schema: {
          operationId: `${action}ActionGroup`,
          tags,
          summary: `Ask the controller to ${action} an action group (a gate, a set of doors).`,
          description:
            'A command to the controller (type action-group.run), acknowledged like every command (event 3); the ' +
            'controller reports the action by an Action Group Log Message (event 29). Every request is a new command. ' +
            '404 for an action group of another facility. No body needed; an optional {reason} (at most 200 ' +
            'characters) is recorded with the request, as every request is (GET …/remote-actions). controller says ' +
            'whether the controller was heard in the last 2 minutes: when not, the command waits for it.',
          params: S.ActionGroupParams,
          body: S.RemoteActionBody,
          response: { 200: Answer('The command written for the controller.', S.ActionGroupAnswer) },
        },
      },
      async (request) =>
        face.runActionGroup(
          facilityOf(request).id,
          request.params.actionGroupId,
          action,
          remoteActionRequest(principalOf(request), request.body),
        ),
    );
  }
};

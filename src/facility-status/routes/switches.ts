// /facilities/{facilityId}/emergency and …/lockdown (SPEC §4.1): each switch as the controller last
// reported it, and the remote actions that turn it on and off.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { facilityOf, principalOf } from '../../http/caller.ts';
import { onFacility } from '../../http/access.ts';
import { Answer } from '../../http/schemas.ts';
import { type FacilityStatus, type FacilitySwitch, remoteActionRequest } from '../index.ts';
import * as S from '../schemas.ts';

// With the operationIds of each switch's read and of turning it on and off.
const SWITCHES: { which: FacilitySwitch; what: string; event: number; get: string; on: string; off: string }[] = [
  {
    which: 'emergency',
    what: 'Emergency access',
    event: 31,
    get: 'getEmergencyMode',
    on: 'enableEmergencyMode',
    off: 'disableEmergencyMode',
  },
  {
    which: 'lockdown',
    what: 'Facility lockdown',
    event: 32,
    get: 'getLockdown',
    on: 'enableLockdown',
    off: 'disableLockdown',
  },
];

export const switchRoutes: FastifyPluginAsyncTypebox<{ face: FacilityStatus }> = async (app, { face }) => {
  const tags = S.STATUS_TAGS;

  for (const { which, what, event, ...operationIds } of SWITCHES) {
    app.get(
      `/facilities/:facilityId/${which}`,
      {
        config: onFacility(...S.READ),
        schema: {
          operationId: operationIds.get,
          tags,
          summary: `${what} as the controller last reported it (event ${event}, data.enabled).`,
          description: 'false when the controller never reported it.',
          params: S.FacilityParams,
          response: { 200: Answer(`True while ${what.toLowerCase()} is on, as last reported.`, Type.Boolean()) },
        },
      },
      async (request) => face.reportedSwitch(facilityOf(request).id, which),
    );
    for (const enabled of [true, false]) {
      app.post(
        `/facilities/:facilityId/${which}/${enabled ? 'enable' : 'disable'}`,
        {
          config: onFacility(...S.WRITE),
          schema: {
            operationId: enabled ? operationIds.on : operationIds.off,
            tags,
            summary: `Ask the controller to turn ${what.toLowerCase()} ${enabled ? 'on' : 'off'}.`,
            description:
              `A command to the controller (type ${which}.set), acknowledged like every command (event 3); the ` +
              `controller then reports event ${event} with data.enabled. Asking again for what is already asked for ` +
              'sends no second command: the answer names the command underway (or the last one, when the controller ' +
              'already reports the state). No body needed; an optional {reason} (at most 200 characters) is recorded ' +
              'with the request, as every request is (GET …/remote-actions; a repeat points at the command underway). ' +
              'controller says whether the controller was heard in the last 2 minutes: when not, the command waits for it.',
            params: S.FacilityParams,
            body: S.RemoteActionBody,
            response: {
              200: Answer('The command asked for (or underway), with the state desired and reported.', S.SwitchAnswer),
            },
          },
        },
        async (request) =>
          face.setSwitch(
            facilityOf(request).id,
            which,
            enabled,
            remoteActionRequest(principalOf(request), request.body),
          ),
      );
    }
  }
};

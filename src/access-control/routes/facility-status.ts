// Facility status and remote operations (SPEC §4.1): the status list, a facility's status, devices
// and switches, emergency access and lockdown on and off, and the facility's action groups.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { facilityOf, principalOf } from '../../http/caller.ts';
import { onFacility, scoped } from '../../http/access.ts';
import { Answer, Nullable } from '../../http/schemas.ts';
import type { Services } from '../../services.ts';
import {
  ACTION_GROUP_ACTIONS,
  facilityStatus,
  listDevices,
  listManualActionGroups,
  reportedSwitch,
  runActionGroup,
  setSwitch,
  statusList,
} from '../facility-status.ts';
import * as S from '../schemas.ts';
import type { FacilitySwitch } from '../status-rules.ts';

// Operators see every facility; a PMS its account's.
const READ = ['accesscontrol:read', 'admin'] as const;
const WRITE = ['accesscontrol:write', 'admin'] as const;
const NoBody = Nullable(Type.Object({}, { description: 'No body needed.' }));

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

export const facilityStatusRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const ac = services.accessControl;
  const db = services.database.db;
  const now = () => services.clock.now();
  const tags = S.STATUS_TAGS;

  app.get(
    '/facilities/statuslist',
    {
      config: scoped(...READ),
      schema: {
        operationId: 'listFacilityStatuses',
        tags,
        summary: 'Every visible facility with its status words (the operator’s first screen).',
        description: `One row per facility, by name; an operator’s token sees every facility. ${S.STATUS_RULES_NOTE}`,
        response: { 200: Answer('One row per facility, by name.', Type.Array(S.StatusListRow)) },
      },
    },
    async (request) => statusList(db, principalOf(request), now()),
  );

  app.get(
    '/facilities/:facilityId/status',
    {
      config: onFacility(...READ),
      schema: {
        operationId: 'getFacilityStatus',
        tags,
        summary: 'The facility’s overall status, devices, alarms, switches and waiting commands.',
        description: `The overall status is the worst of the four parts, with their messages. ${S.STATUS_RULES_NOTE}`,
        params: S.FacilityParams,
        response: { 200: Answer('The facility’s status.', S.FacilityStatus) },
      },
    },
    async (request) => facilityStatus(db, facilityOf(request).id, now()),
  );

  app.get(
    '/facilities/:facilityId/devices',
    {
      config: onFacility(...READ),
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
    async (request) => listDevices(db, facilityOf(request).id),
  );

  for (const { which, what, event, ...operationIds } of SWITCHES) {
    app.get(
      `/facilities/:facilityId/${which}`,
      {
        config: onFacility(...READ),
        schema: {
          operationId: operationIds.get,
          tags,
          summary: `${what} as the controller last reported it (event ${event}, data.enabled).`,
          description: 'false when the controller never reported it.',
          params: S.FacilityParams,
          response: { 200: Answer(`True while ${what.toLowerCase()} is on, as last reported.`, Type.Boolean()) },
        },
      },
      async (request) => reportedSwitch(db, facilityOf(request).id, which),
    );
    for (const enabled of [true, false]) {
      app.post(
        `/facilities/:facilityId/${which}/${enabled ? 'enable' : 'disable'}`,
        {
          config: onFacility(...WRITE),
          schema: {
            operationId: enabled ? operationIds.on : operationIds.off,
            tags,
            summary: `Ask the controller to turn ${what.toLowerCase()} ${enabled ? 'on' : 'off'}.`,
            description:
              `A command to the controller (type ${which}.set), acknowledged like every command (event 3); the ` +
              `controller then reports event ${event} with data.enabled. Asking again for what is already asked for ` +
              'sends no second command: the answer names the command underway (or the last one, when the controller ' +
              'already reports the state). No body needed.',
            params: S.FacilityParams,
            body: NoBody,
            response: {
              200: Answer('The command asked for (or underway), with the state desired and reported.', S.SwitchAnswer),
            },
          },
        },
        async (request) => setSwitch(ac, facilityOf(request).id, which, enabled),
      );
    }
  }

  app.get(
    '/facilities/:facilityId/actiongroups/manual',
    {
      config: onFacility(...READ),
      schema: {
        operationId: 'listManualActionGroups',
        tags,
        summary: 'The facility’s manually triggered action groups (every facility starts with "Main Gate").',
        params: S.FacilityParams,
        response: { 200: Answer('The manual action groups.', Type.Array(S.ActionGroup)) },
      },
    },
    async (request) => listManualActionGroups(db, facilityOf(request).id),
  );

  for (const action of ACTION_GROUP_ACTIONS) {
    app.post(
      `/facilities/:facilityId/actiongroups/:actionGroupId/${action}`,
      {
        config: onFacility(...WRITE),
        schema: {
          operationId: `${action}ActionGroup`,
          tags,
          summary: `Ask the controller to ${action} an action group (a gate, a set of doors).`,
          description:
            'A command to the controller (type action-group.run), acknowledged like every command (event 3); the ' +
            'controller reports the action by an Action Group Log Message (event 29). Every request is a new command. ' +
            '404 for an action group of another facility. No body needed.',
          params: S.ActionGroupParams,
          body: NoBody,
          response: { 200: Answer('The command written for the controller.', S.ActionGroupAnswer) },
        },
      },
      async (request) => runActionGroup(ac, facilityOf(request).id, request.params.actionGroupId, action),
    );
  }
};

// /sandbox/facilities/{facilityId}/…: make anything happen at a sandbox facility's simulated controller —
// an event of any type, the controller or a device offline and back, a drift, the next commands failed,
// the site's activity (the operations are part B's: src/sandbox/controllers/controls.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { onFacility } from '../../http/access.ts';
import { facilityOf } from '../../http/caller.ts';
import { Refused } from '../../http/problem.ts';
import { Answer } from '../../http/schemas.ts';
import type { SandboxControllers } from '../index.ts';
import {
  ActionAccepted,
  ActivityBody,
  CONTROLS_NOTE,
  ControllerView,
  ControlParams,
  DeviceBody,
  DeviceControlParams,
  DriftBody,
  FailCommandsBody,
  ReportEventBody,
  SANDBOX_CONTROLS_PER_MINUTE,
  tags,
} from '../schemas.ts';

const READ = onFacility('accesscontrol:read', 'admin');
/** Each control route counts its own requests per credential, apart from the service-wide limit. */
const CONTROL = {
  ...onFacility('accesscontrol:write', 'admin'),
  rateLimit: { max: SANDBOX_CONTROLS_PER_MINUTE, timeWindow: 60_000 },
};
const NOT_FOUND = Refused('Not a facility of a sandbox the token sees (a production facility is 404 here).');
const BACKLOG = Refused('The controller holds 1,000 actions not yet done (SANDBOX_CONTROLLER_BACKLOG).');
const accepted = (what: string) => ({
  202: Answer(`${what}: the controller does it within about a second while it runs and is online.`, ActionAccepted),
  404: NOT_FOUND,
  409: BACKLOG,
});

export const controlRoutes: FastifyPluginAsyncTypebox<{ controllers: SandboxControllers }> = async (
  app,
  { controllers },
) => {
  const facilityId = (request: Parameters<typeof facilityOf>[0]) => facilityOf(request).id;

  app.get(
    '/sandbox/facilities/:facilityId/controller',
    {
      config: READ,
      schema: {
        operationId: 'getSandboxController',
        tags,
        summary: 'The simulated controller of a sandbox facility: online, activity, devices held offline.',
        description: CONTROLS_NOTE,
        params: ControlParams,
        response: { 200: Answer('The controller.', ControllerView), 404: NOT_FOUND },
      },
    },
    async (request) => controllers.describe(facilityId(request)),
  );

  for (const state of ['online', 'offline'] as const)
    app.post(
      `/sandbox/facilities/:facilityId/controller/${state}`,
      {
        config: CONTROL,
        schema: {
          operationId: state === 'online' ? 'sandboxControllerOnline' : 'sandboxControllerOffline',
          tags,
          summary:
            state === 'offline'
              ? 'Take the simulated controller offline: no polls, events or digests (the status list turns).'
              : 'Bring the simulated controller back online: it sends what it held meanwhile.',
          description: CONTROLS_NOTE,
          params: ControlParams,
          response: { 200: Answer('The controller.', ControllerView), 404: NOT_FOUND },
        },
      },
      async (request) => controllers.setControllerOnline(facilityId(request), state === 'online'),
    );

  app.put(
    '/sandbox/facilities/:facilityId/controller/activity',
    {
      config: CONTROL,
      schema: {
        operationId: 'setSandboxActivity',
        tags,
        summary: 'Set how busy the simulated site is: keypad entries an hour (0: quiet).',
        description: `${CONTROLS_NOTE} A tenth of the entries use a wrong code, half the grants open the unit’s door, one entry in 50 is a door alarm.`,
        params: ControlParams,
        body: ActivityBody,
        response: { 200: Answer('The controller.', ControllerView), 404: NOT_FOUND },
      },
    },
    async (request) => controllers.setActivity(facilityId(request), request.body),
  );

  app.post(
    '/sandbox/facilities/:facilityId/events',
    {
      config: CONTROL,
      schema: {
        operationId: 'reportSandboxEvent',
        tags,
        summary: 'Make the simulated controller report an event of any type (a door alarm, an invalid code, …).',
        description: `${CONTROLS_NOTE} The event goes where a real controller’s goes: the events API, the live stream, webhooks.`,
        params: ControlParams,
        body: ReportEventBody,
        response: accepted('The event will be reported'),
      },
    },
    async (request, reply) => reply.code(202).send(await controllers.reportEvent(facilityId(request), request.body)),
  );

  for (const state of ['online', 'offline'] as const)
    app.post(
      `/sandbox/facilities/:facilityId/devices/:deviceId/${state}`,
      {
        config: CONTROL,
        schema: {
          operationId: state === 'online' ? 'sandboxDeviceOnline' : 'sandboxDeviceOffline',
          tags,
          summary:
            state === 'offline'
              ? 'A device of the simulated site goes offline (event 11) and stays so until brought back.'
              : 'A device of the simulated site comes back (event 12).',
          description: CONTROLS_NOTE,
          params: DeviceControlParams,
          body: DeviceBody,
          response: accepted(`The device will be reported ${state}`),
        },
      },
      async (request, reply) =>
        reply.code(202).send(
          await controllers.setDeviceOnline(facilityId(request), state === 'online', {
            ...(request.body ?? {}),
            deviceId: request.params.deviceId,
          }),
        ),
    );

  app.post(
    '/sandbox/facilities/:facilityId/drift',
    {
      config: CONTROL,
      schema: {
        operationId: 'makeSandboxDrift',
        tags,
        summary: 'The simulated controller changes what it holds on its own, once (the drift face finds and heals it).',
        description: CONTROLS_NOTE,
        params: ControlParams,
        body: DriftBody,
        response: accepted('The drift will be made'),
      },
    },
    async (request, reply) => reply.code(202).send(await controllers.driftNow(facilityId(request), request.body ?? {})),
  );

  app.post(
    '/sandbox/facilities/:facilityId/fail-commands',
    {
      config: CONTROL,
      schema: {
        operationId: 'failSandboxCommands',
        tags,
        summary:
          'The simulated controller fails the next N commands it receives (acknowledged as failed, with a reason).',
        description: `${CONTROLS_NOTE} N replaces any count still pending; 0 clears it.`,
        params: ControlParams,
        body: FailCommandsBody,
        response: accepted('The count is set'),
      },
    },
    async (request, reply) =>
      reply.code(202).send(await controllers.failNextCommands(facilityId(request), request.body)),
  );
};

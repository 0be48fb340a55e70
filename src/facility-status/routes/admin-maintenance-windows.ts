// /admin/facilities/{facilityId}/maintenance-windows (the operator, issue 28): schedule a facility's
// maintenance window, list the windows, cancel one (what `gatehouse admin maintenance …` does). While
// a window is underway the status list's gateway and device parts say `maintenance` (routes/status.ts).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../../http/caller.ts';
import { OPERATOR } from '../../http/access.ts';
import { Refused } from '../../http/problem.ts';
import { Answer, EntityId, Nullable, StringEnum } from '../../http/schemas.ts';
import {
  type FacilityStatus,
  MAINTENANCE_REASON_MAX_LENGTH,
  MAINTENANCE_WINDOW_MAX_MS,
  MAINTENANCE_WINDOW_STATES,
  MAINTENANCE_WINDOWS_INCLUDE,
  MAINTENANCE_WINDOWS_PAGE_MAX,
} from '../index.ts';
import { FacilityParams } from '../schemas.ts';

const MAX_DAYS = MAINTENANCE_WINDOW_MAX_MS / 86_400_000;

const MaintenanceWindow = Type.Object(
  {
    id: EntityId('The maintenance window id.'),
    facilityId: EntityId('The facility id.'),
    startsAt: Type.String({ format: 'date-time' }),
    endsAt: Type.String({ format: 'date-time', description: 'As scheduled (a cancellation does not change it).' }),
    reason: Nullable(Type.String()),
    state: StringEnum(MAINTENANCE_WINDOW_STATES, {
      description:
        'At the time of the answer: scheduled (to come), underway, ended, or cancelled (before it started, or ' +
        'while underway: then it ended at cancelledAt).',
    }),
    scheduledBy: Type.String({
      description: 'Who scheduled it: operator:<clientId>, or cli:<user> (the command line).',
    }),
    createdAt: Type.String({ format: 'date-time' }),
    cancelledAt: Nullable(Type.String({ format: 'date-time' })),
    cancelledBy: Nullable(Type.String()),
  },
  {
    $id: 'MaintenanceWindow',
    examples: [
      {
        id: 7,
        facilityId: 42,
        startsAt: '2026-11-27T09:00:00.000Z',
        endsAt: '2026-11-27T09:30:00.000Z',
        reason: 'Keypad firmware update',
        state: 'scheduled',
        scheduledBy: 'operator:app_3kq9w2',
        createdAt: '2026-11-26T16:12:40.000Z',
        cancelledAt: null,
        cancelledBy: null,
      },
    ],
  },
);

// Named: this face takes its bodies in three media types (src/http/lenient.ts).
const ScheduleMaintenanceWindowBody = Type.Object(
  {
    startsAt: Type.String({
      format: 'date-time',
      description: 'When it starts, with an offset. A time in the past starts the window now.',
    }),
    endsAt: Type.String({
      format: 'date-time',
      description: `When it ends: after startsAt, in the future, at most ${MAX_DAYS} days after the start.`,
    }),
    reason: Type.Optional(
      Nullable(
        Type.String({
          maxLength: MAINTENANCE_REASON_MAX_LENGTH,
          description: `Shown in the status messages (≤ ${MAINTENANCE_REASON_MAX_LENGTH} characters).`,
        }),
      ),
    ),
  },
  { $id: 'ScheduleMaintenanceWindowRequest' },
);

const ListQuery = Type.Object({
  include: Type.Optional(
    StringEnum(MAINTENANCE_WINDOWS_INCLUDE, {
      default: 'upcoming',
      description:
        'upcoming: underway and to come, by start; all: every window, ended and cancelled too, newest first.',
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAINTENANCE_WINDOWS_PAGE_MAX, default: 100 })),
  after: Type.Optional(EntityId('The last window id of the page before: the list continues after it.')),
});

const WindowParams = Type.Object({
  facilityId: EntityId('The facility id.'),
  windowId: EntityId('The maintenance window id.'),
});

export const adminMaintenanceWindowRoutes: FastifyPluginAsyncTypebox<{ face: FacilityStatus }> = async (
  app,
  { face },
) => {
  const tags = ['admin'];

  app.post(
    '/admin/facilities/:facilityId/maintenance-windows',
    {
      config: OPERATOR,
      schema: {
        operationId: 'scheduleMaintenanceWindow',
        tags,
        summary: 'Schedule a maintenance window for a facility.',
        description:
          'While the window is underway the status list’s gateway and device parts say maintenance (with the ' +
          'window’s end and reason): a silent controller and offline devices raise nothing; alarms still show. ' +
          `400 names each bad field: a date that is not one, endsAt not after startsAt or already past, a window over ${MAX_DAYS} ` +
          `days, a reason over ${MAINTENANCE_REASON_MAX_LENGTH} characters. Windows may overlap. 404 for a facility that does not exist.`,
        params: FacilityParams,
        body: ScheduleMaintenanceWindowBody,
        response: {
          201: Answer('The window, scheduled.', MaintenanceWindow),
          404: Refused('The facility does not exist.'),
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(
        await face.scheduleMaintenanceWindow({
          facilityId: request.params.facilityId,
          ...request.body,
          scheduledBy: actorOf(request),
        }),
      ),
  );

  app.get(
    '/admin/facilities/:facilityId/maintenance-windows',
    {
      config: OPERATOR,
      schema: {
        operationId: 'listMaintenanceWindows',
        tags,
        summary: 'A facility’s maintenance windows: underway and to come (or every one).',
        description:
          `At most limit (1–${MAINTENANCE_WINDOWS_PAGE_MAX}, default 100); the next page with after = the last id. ` +
          '400 for an after that is not a window of this facility; 404 for a facility that does not exist.',
        params: FacilityParams,
        querystring: ListQuery,
        response: {
          200: Answer('The windows, in the order include names.', Type.Array(MaintenanceWindow)),
          404: Refused('The facility does not exist.'),
        },
      },
    },
    async (request) => face.listMaintenanceWindows(request.params.facilityId, request.query),
  );

  app.delete(
    '/admin/facilities/:facilityId/maintenance-windows/:windowId',
    {
      config: OPERATOR,
      schema: {
        operationId: 'cancelMaintenanceWindow',
        tags,
        summary: 'Cancel a maintenance window: one to come never starts, one underway ends now.',
        description:
          'Cancelling a cancelled window answers it as it is. 409 MAINTENANCE_WINDOW_OVER for a window that has ended; ' +
          '404 for a window of another facility, or a facility that does not exist.',
        params: WindowParams,
        response: {
          200: Answer('The window, cancelled.', MaintenanceWindow),
          404: Refused('The facility or the window does not exist.'),
          409: Refused('MAINTENANCE_WINDOW_OVER: the window has ended.'),
        },
      },
    },
    async (request) =>
      face.cancelMaintenanceWindow(request.params.facilityId, request.params.windowId, actorOf(request)),
  );
};

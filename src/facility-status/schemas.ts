// TypeBox schemas of the facility-status face (SPEC §4.1): the status list, a facility's status,
// devices, switches and action groups, with the tags and notes its routes share.
import { Type } from '@fastify/type-provider-typebox';
import { COMMAND_STATUSES } from '../commands/index.ts';
import { EntityId, Nullable, StringEnum } from '../http/schemas.ts';

/** Who reads and who acts: an operator sees every facility, a PMS its account's. */
export const READ = ['accesscontrol:read', 'admin'] as const;
export const WRITE = ['accesscontrol:write', 'admin'] as const;

/** The remote actions take no body (an empty one, or null, is no body). */
export const NoBody = Nullable(Type.Object({}, { description: 'No body needed.' }));

const facilityId = EntityId('The facility id.');
export const FacilityParams = Type.Object({ facilityId });

export const STATUS_TAGS = ['access control: facility status'];

export const STATUS_RULES_NOTE =
  'Statuses are ok, warning or error. gateway: ok when the controller was heard (a poll or an event) in the last 2 ' +
  'minutes, warning within 15, error after that or never ("never connected"). device: error while a device’s last ' +
  'online/offline event (11/12) says offline, naming them. alarm: error while a door alarm (10), tamper (26) or unit ' +
  'door alarm (35) is active (data.active; an event without it counts as the alarm appearing), warning while emergency ' +
  'access or a lockdown is reported on. pmsInterface: warning while a command has waited more than 5 minutes for its ' +
  'acknowledgement, error after an hour. The edge-router fields are always null (no such devices here).';

const Word = StringEnum(['ok', 'warning', 'error'] as const);

export const StatusListRow = Type.Object(
  {
    facilityId: EntityId('The facility id.'),
    facilityName: Type.String(),
    facilityPropertyNumber: Nullable(Type.String()),
    accountName: Type.String(),
    gatewayStatus: Word,
    gatewayStatusMessage: Type.String(),
    deviceStatus: Word,
    deviceStatusMessage: Type.String(),
    alarmStatus: Word,
    alarmStatusMessage: Type.String(),
    pmsInterfaceStatus: Word,
    pmsInterfaceStatusMessage: Type.String(),
    edgeRouterStatus: Type.Null(),
    edgeRouterStatusMessage: Type.Null(),
    edgeRouterPlatformDeviceStatus: Type.Null(),
    edgeRouterPlatformDeviceStatusMessage: Type.Null(),
  },
  { $id: 'FacilityStatusListRow' },
);

const SwitchState = Type.Object(
  {
    reported: Nullable(Type.Boolean({ description: 'What the controller last reported (null: never).' })),
    desired: Nullable(Type.Boolean({ description: 'What was last asked for (null: never).' })),
  },
  { $id: 'SwitchState' },
);

export const FacilityStatus = Type.Object(
  {
    gatewayControllerPlatformOverallStatus: Word,
    gatewayControllerPlatformOverallStatusMessage: Type.String(),
    edgeRouterPlatformOverallStatus: Type.Null(),
    edgeRouterPlatformOverallStatusMessage: Type.Null(),
    lastSeenAt: Nullable(Type.String({ format: 'date-time', description: 'The controller’s last poll or events.' })),
    devices: Type.Object({ total: Type.Integer(), offline: Type.Integer() }),
    activeAlarms: Type.Array(
      Type.Object(
        {
          eventType: Type.Integer(),
          eventTypeName: Type.String(),
          deviceId: Nullable(Type.String()),
          deviceName: Nullable(Type.String()),
          unitId: Nullable(EntityId('The unit of a unit door alarm.')),
          unitNumber: Nullable(Type.String()),
          since: Type.String({ format: 'date-time' }),
        },
        { $id: 'ActiveAlarm' },
      ),
    ),
    emergency: SwitchState,
    lockdown: SwitchState,
    commands: Type.Object({
      pending: Type.Integer({ description: 'Commands not yet settled: neither acknowledged, failed nor expired.' }),
      oldestPendingAt: Nullable(Type.String({ format: 'date-time' })),
    }),
  },
  {
    $id: 'FacilityStatus',
    examples: [
      {
        gatewayControllerPlatformOverallStatus: 'error',
        gatewayControllerPlatformOverallStatusMessage: '1 active alarm: Door alarm at Gate 1.',
        edgeRouterPlatformOverallStatus: null,
        edgeRouterPlatformOverallStatusMessage: null,
        lastSeenAt: '2026-11-25T14:02:11Z',
        devices: { total: 4, offline: 0 },
        activeAlarms: [
          {
            eventType: 10,
            eventTypeName: 'Door Alarm',
            deviceId: 'door-1',
            deviceName: 'Gate 1',
            unitId: null,
            unitNumber: null,
            since: '2026-11-25T13:58:40Z',
          },
        ],
        emergency: { reported: false, desired: null },
        lockdown: { reported: null, desired: null },
        commands: { pending: 1, oldestPendingAt: '2026-11-25T14:01:57Z' },
      },
    ],
  },
);

export const Device = Type.Object(
  {
    id: Type.String({ description: 'The controller’s device id.' }),
    name: Nullable(Type.String()),
    isPaired: Type.Boolean({ description: 'False once a Device Pairing event (38) said data.paired: false.' }),
    status: Type.Object({ isOffline: Type.Boolean() }),
    lastEventType: Type.Integer(),
    lastEventAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'Device' },
);

/** A command a request wrote (or found underway), by id, sequence and status. */
export const CommandRef = Type.Object(
  {
    id: Type.String(),
    sequence: Type.Integer(),
    status: StringEnum(COMMAND_STATUSES),
  },
  { $id: 'CommandRef' },
);

export const SwitchAnswer = Type.Object(
  {
    command: Nullable(CommandRef),
    desired: Nullable(Type.Boolean()),
    reported: Nullable(Type.Boolean()),
  },
  { $id: 'SwitchChange' },
);

export const ActionGroup = Type.Object(
  { id: EntityId('The action group id.'), name: Type.String() },
  { $id: 'ActionGroup' },
);
export const ActionGroupParams = Type.Object({ facilityId, actionGroupId: EntityId('The action group id.') });
export const ActionGroupAnswer = Type.Object({ command: CommandRef }, { $id: 'ActionGroupRun' });

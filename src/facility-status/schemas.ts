// TypeBox schemas of the facility-status face (SPEC §4.1): the status list, a facility's status,
// devices, switches and action groups, with the tags and notes its routes share.
import { Type } from '@fastify/type-provider-typebox';
import { COMMAND_STATUSES } from '../commands/index.ts';
import { EntityId, Nullable, StringEnum } from '../http/schemas.ts';
import { REMOTE_ACTIONS } from './remote-actions.ts';
import { REMOTE_ACTION_REASON_MAX, STATUS_WORDS } from './rules.ts';

/** Who reads and who acts: an operator sees every facility, a PMS its account's. */
export const READ = ['accesscontrol:read', 'admin'] as const;
export const WRITE = ['accesscontrol:write', 'admin'] as const;

/**
 * A remote action's body: an optional reason, recorded with it (issue 28). None is needed: an empty
 * body, `null` or `""` is no body (the face's lenient bodies), as existing clients send.
 */
export const RemoteActionBody = Nullable(
  Type.Object(
    {
      reason: Type.Optional(
        Nullable(
          Type.String({
            maxLength: REMOTE_ACTION_REASON_MAX,
            description: `Why, in a person's words (at most ${REMOTE_ACTION_REASON_MAX} characters; "" or null: none). Recorded with the action (GET …/remote-actions).`,
          }),
        ),
      ),
    },
    { $id: 'RemoteActionRequest', description: 'Optional: no body is needed.' },
  ),
);

const facilityId = EntityId('The facility id.');
export const FacilityParams = Type.Object({ facilityId });

export const STATUS_TAGS = ['access control: facility status'];

export const STATUS_RULES_NOTE =
  'Statuses are ok, maintenance, warning or error. gateway: ok when the controller was heard (a poll or an event) in the last 2 ' +
  'minutes, warning within 15, error after that or never ("never connected"). device: error while a device’s last ' +
  'online/offline event (11/12) says offline, naming them. alarm: error while a door alarm (10), tamper (26) or unit ' +
  'door alarm (35) is active (data.active; an event without it counts as the alarm appearing), warning while emergency ' +
  'access or a lockdown is reported on. pmsInterface: warning while a command has waited more than 5 minutes for its ' +
  'acknowledgement, error after an hour. maintenance: while a maintenance window the operator scheduled is underway, ' +
  'gateway and device say maintenance whatever the controller and devices report (the message names the window’s end ' +
  'and reason, then what the part would say otherwise); alarms and the PMS interface keep their rules. The overall ' +
  'status ranks them ok < maintenance < warning < error. The edge-router fields are always null (no such devices here).';

const Word = StringEnum(STATUS_WORDS);

export const StatusListRow = Type.Object(
  {
    facilityId: EntityId('The facility id.'),
    facilityName: Type.String(),
    facilityPropertyNumber: Nullable(Type.String()),
    accountName: Type.String(),
    sandbox: Type.Boolean({
      description:
        'Whether the facility belongs to a sandbox (an integrator’s test account, run by simulated controllers).',
    }),
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
    maintenance: Nullable(
      Type.Object(
        {
          id: EntityId('The maintenance window id.'),
          startsAt: Type.String({ format: 'date-time' }),
          endsAt: Type.String({ format: 'date-time', description: 'When it stops (earlier when it was cancelled).' }),
          reason: Nullable(Type.String()),
        },
        {
          $id: 'MaintenanceUnderway',
          description: 'The maintenance window underway (null: none); scheduled by the operator (/admin/…).',
        },
      ),
    ),
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
        maintenance: null,
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

/** What every remote action's answer adds (issue 28): its record, and whether the controller was heard lately. */
const RemoteActionAnswerFields = {
  remoteActionId: Type.String({ description: 'The record of this request (GET …/remote-actions).' }),
  controller: Type.Object(
    {
      lastHeardAt: Nullable(
        Type.String({ format: 'date-time', description: 'Its last poll or events (null: never).' }),
      ),
      connected: Type.Boolean({
        description:
          'Heard within the last 2 minutes (the status list’s gateway "ok"). When false the command waits for it.',
      }),
      message: Type.String(),
    },
    { $id: 'ControllerContact' },
  ),
};

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
    ...RemoteActionAnswerFields,
  },
  { $id: 'SwitchChange' },
);

export const ActionGroup = Type.Object(
  { id: EntityId('The action group id.'), name: Type.String() },
  { $id: 'ActionGroup' },
);
export const ActionGroupParams = Type.Object({ facilityId, actionGroupId: EntityId('The action group id.') });
export const ActionGroupAnswer = Type.Object(
  { command: CommandRef, ...RemoteActionAnswerFields },
  { $id: 'ActionGroupRun' },
);

// ---- remote actions accounted for (issue 28) ----

export const RemoteActionsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: '1–1,000, default 100.' })),
  before: Type.Optional(
    Type.String({
      format: 'uuid',
      description: 'A remote action’s id: only those requested before it (the next page: the last id of this one).',
    }),
  ),
});

export const RemoteAction = Type.Object(
  {
    id: Type.String(),
    facilityId: EntityId('The facility id.'),
    action: StringEnum(REMOTE_ACTIONS),
    actionGroup: Nullable(
      Type.Object(
        { id: Nullable(EntityId('The action group id.')), name: Type.String() },
        { description: 'action-group.… only.' },
      ),
    ),
    reason: Nullable(Type.String()),
    requestedAt: Type.String({ format: 'date-time' }),
    requestedBy: Type.Object(
      {
        kind: StringEnum(['account', 'operator', 'partner', 'gateway'] as const, {
          description: 'account: a PMS acting for an account; operator: the service’s operator (the console).',
        }),
        credentialId: Type.String({
          description: 'The credential the token was issued for (an account key, an application).',
        }),
        clientId: Type.String({ description: 'The application (OAuth client) that asked.' }),
        accountId: Nullable(EntityId('The account the token acted for (null: an operator).')),
      },
      { $id: 'RemoteActionRequester' },
    ),
    wroteCommand: Type.Boolean({
      description:
        'false: a repeated emergency/lockdown request that wrote no command; command is then the one underway (or the last one).',
    }),
    command: Nullable(
      Type.Object(
        {
          id: Type.String(),
          sequence: Type.Integer(),
          status: StringEnum(COMMAND_STATUSES, { description: 'The result: the command’s status now.' }),
          failureReason: Nullable(Type.String({ description: 'The controller’s reason when status is failed.' })),
        },
        { $id: 'RemoteActionCommand' },
      ),
    ),
  },
  { $id: 'RemoteAction' },
);

// TypeBox schemas of the sandbox face's routes (the account's /sandboxes and the operator's).
import { Type } from '@fastify/type-provider-typebox';
import { EVENT_TYPE_NUMBERS, FIELD_LIMITS } from '../events/index.ts';
import { EntityId, StringEnum } from '../http/schemas.ts';
import {
  FACILITY_SIZES,
  FACILITY_SIZE_NAMES,
  MAX_SEEDED_FACILITIES,
  SANDBOX_KEEP_DAYS,
  SANDBOX_LIMIT,
} from './rules.ts';

export const tags = ['sandboxes'];

const sizes = FACILITY_SIZE_NAMES.map((size) => {
  const { units, visitors } = FACILITY_SIZES[size];
  return `${size}: ${units.toLocaleString('en-US')} units, ${visitors.toLocaleString('en-US')} visitors`;
}).join('; ');

/** What a sandbox is, said once for every sandbox route. */
export const SANDBOX_NOTE =
  'A sandbox is an account of its own, owned by a production account: fully isolated (its facilities, units, ' +
  'visitors, events and webhooks are its own, and another account’s ids are 404 to it, as to every account), ' +
  'marked as a sandbox in every view and token (`sandbox: true`), with its own credentials (prefixes `sbkey_`, ' +
  '`gh_sbs_`, `sbgwc_`, `gh_sbgs_`). Rate limits and sizes are the production ones. ' +
  `An account has at most ${SANDBOX_LIMIT}; each is deleted, with every row, ${SANDBOX_KEEP_DAYS} days after its ` +
  'last use (a token issued to one of its credentials).';

export const FacilitySize = StringEnum(FACILITY_SIZE_NAMES, {
  description: `What the facility is seeded with: ${sizes}.`,
});

export const SandboxFacility = Type.Object(
  {
    id: EntityId('The facility id.'),
    name: Type.String(),
    size: FacilitySize,
    units: Type.Integer({ minimum: 0, description: 'Its units now (not deleted).' }),
    visitors: Type.Integer({
      minimum: 0,
      description: 'Its visitors now (not removed), each seeded one with a gate code.',
    }),
  },
  { $id: 'SandboxFacility' },
);

const sandboxProperties = {
  id: EntityId('The sandbox’s account id.'),
  name: Type.String(),
  ownerAccountId: EntityId('The production account that owns it.'),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.String({
    format: 'date-time',
    description: 'When one of its credentials last got a token (recorded to the minute), or its creation.',
  }),
  expiresAt: Type.String({
    format: 'date-time',
    description: `lastUsedAt + ${SANDBOX_KEEP_DAYS} days: then it is deleted, unless used again before.`,
  }),
  facilities: Type.Array(SandboxFacility),
};

const example = {
  id: 42,
  name: 'Integration tests',
  ownerAccountId: 7,
  createdAt: '2026-11-25T18:04:12.351Z',
  lastUsedAt: '2026-11-25T18:04:12.351Z',
  expiresAt: '2026-12-25T18:04:12.351Z',
  facilities: [{ id: 310, name: 'Small facility 1', size: 'small', units: 20, visitors: 10 }],
};

export const Sandbox = Type.Object(sandboxProperties, { $id: 'Sandbox', examples: [example] });

export const CreatedSandbox = Type.Object(
  {
    ...sandboxProperties,
    credentials: Type.Object(
      {
        accountKey: Type.Object(
          {
            apiKey: Type.String({ description: 'The password grant’s username (sbkey_…).' }),
            apiSecret: Type.String({ description: 'The password grant’s password (gh_sbs_…); shown only here.' }),
            clientId: Type.String({ description: 'The application the key is bound to: authenticate as it.' }),
          },
          { additionalProperties: false },
        ),
        gateways: Type.Array(
          Type.Object({
            facilityId: EntityId('The seeded facility.'),
            clientId: Type.String({ description: 'Its controller’s client id (sbgwc_…).' }),
            clientSecret: Type.String({ description: 'Its controller’s client secret (gh_sbgs_…); shown only here.' }),
          }),
          { description: 'One controller credential per seeded facility (client credentials grant).' },
        ),
      },
      { description: 'The sandbox’s credentials; the secrets are shown only here.' },
    ),
  },
  {
    $id: 'CreatedSandbox',
    examples: [
      {
        ...example,
        credentials: {
          accountKey: { apiKey: 'sbkey_Xb3…', apiSecret: 'gh_sbs_…', clientId: 'app_…' },
          gateways: [{ facilityId: 310, clientId: 'sbgwc_…', clientSecret: 'gh_sbgs_…' }],
        },
      },
    ],
  },
);

const createProperties = {
  name: Type.String({ minLength: 1, maxLength: 200, description: '1–200 printable characters.' }),
  facilities: Type.Optional(
    Type.Array(FacilitySize, {
      maxItems: MAX_SEEDED_FACILITIES,
      description: `The facilities to seed, by size (at most ${MAX_SEEDED_FACILITIES}); none by default.`,
    }),
  ),
};

export const CreateSandboxBody = Type.Object(createProperties, {
  examples: [{ name: 'Integration tests', facilities: ['small', 'large'] }],
});

export const AdminCreateSandboxBody = Type.Object(
  {
    ...createProperties,
    clientId: Type.String({ description: 'The PMS application the sandbox’s account key is bound to.' }),
    scopes: Type.Optional(
      Type.Array(Type.String(), {
        maxItems: 10,
        description: 'The sandbox key’s scopes, as for an account key (default: an account key’s defaults).',
      }),
    ),
  },
  { examples: [{ name: 'Acme PMS certification', facilities: ['small'], clientId: 'app_…' }] },
);

export const SandboxParams = Type.Object({ sandboxId: EntityId('The sandbox’s account id.') });
export const AccountSandboxParams = Type.Object({
  accountId: EntityId('The owning account.'),
  sandboxId: EntityId('The sandbox’s account id.'),
});
export const AccountParams = Type.Object({ accountId: EntityId('The owning account.') });

// ---- The controls of a sandbox facility's simulated controller (part B: src/sandbox/controllers/) ----

/** How many control requests a credential may make per route and minute (beyond: 429 with Retry-After). */
export const SANDBOX_CONTROLS_PER_MINUTE = 60;

export const CONTROLS_NOTE =
  'Only on a sandbox’s facility (a production facility, or another account’s, is 404): its gateway controller is ' +
  'simulated by the service — it polls, applies and acknowledges commands, sends digests and reports activity at ' +
  'the facility’s rate while the sandbox is in use (a token issued within the hour). Each action is done by the ' +
  'controller within about a second while it runs and is online, and held (in order, up to 1,000) while it is ' +
  `offline or stopped. At most ${SANDBOX_CONTROLS_PER_MINUTE} requests a minute per route and credential.`;

export const ControlParams = Type.Object({ facilityId: EntityId('A facility of a sandbox.') });
export const DeviceControlParams = Type.Object({
  facilityId: EntityId('A facility of a sandbox.'),
  deviceId: Type.String({ minLength: 1, description: 'The device, as the controller reports it (e.g. kp-gate).' }),
});

export const ControllerView = Type.Object(
  {
    facilityId: EntityId('The facility.'),
    online: Type.Boolean({ description: 'false: the controller is silent (no polls, no events, no digests).' }),
    activityPerHour: Type.Integer({ minimum: 0, description: 'Keypad entries an hour at the simulated site.' }),
    offlineDevices: Type.Array(Type.String(), { description: 'Devices held offline, by id.' }),
    running: Type.Boolean({
      description: 'An instance of the service runs the controller now (the sandbox is in use).',
    }),
    pendingActions: Type.Integer({ minimum: 0, description: 'Actions asked for and not yet done.' }),
  },
  { $id: 'SandboxController' },
);

export const ActionAccepted = Type.Object(
  {
    facilityId: EntityId('The facility.'),
    requestedAt: Type.String({ format: 'date-time' }),
    eventId: Type.Optional(
      Type.String({ format: 'uuid', description: 'The event’s id as the controller reports it (an event, a device).' }),
    ),
  },
  { $id: 'SandboxActionAccepted' },
);

// The gateway's own limits (the controls' judge, src/sandbox/controllers/rules.ts, checks the same and what a
// schema cannot say): here so that one answer names every bad field at once.
const text = (max: number, description?: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: max, ...(description ? { description } : {}) }));

export const ReportEventBody = Type.Object(
  {
    eventType: Type.Integer({
      enum: [...EVENT_TYPE_NUMBERS],
      description: 'Any type of the catalogue (GET /gatewayevents/types); another number is 400 naming eventType.',
    }),
    deviceId: text(FIELD_LIMITS.deviceId, 'The device, as the controller names it (e.g. kp-gate).'),
    deviceName: text(FIELD_LIMITS.deviceName),
    unitId: Type.Optional(EntityId('A unit the event names.')),
    visitorId: Type.Optional(EntityId('A visitor the event names.')),
    details: text(FIELD_LIMITS.details),
    data: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'As a controller sends it.' })),
  },
  { $id: 'SandboxReportEvent', additionalProperties: false },
);

export const DeviceBody = Type.Object({ deviceName: text(FIELD_LIMITS.deviceName) });

export const DriftBody = Type.Object(
  {
    loseVisitors: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Visitors the controller loses (default 1).' }),
    ),
    alterUnits: Type.Optional(Type.Integer({ minimum: 0, description: 'Units it changes (default 1).' })),
    addVisitors: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Visitors with codes it gains on its own (default 1).' }),
    ),
  },
  { $id: 'SandboxDrift' },
);

export const FailCommandsBody = Type.Object(
  { count: Type.Integer({ minimum: 0, description: 'How many of the next commands to fail (0 clears).' }) },
  { $id: 'SandboxFailCommands' },
);

export const ActivityBody = Type.Object(
  { activityPerHour: Type.Integer({ minimum: 0, description: 'Keypad entries an hour (0: quiet).' }) },
  { $id: 'SandboxActivity' },
);

// TypeBox schemas of the access-control face: they validate requests, shape responses (a field
// not listed here is never serialized — a gate code cannot leak through a read) and feed OpenAPI;
// with the notes and tags its routes share.
import { Type } from '@fastify/type-provider-typebox';
import { Answer, EntityId, Nullable, StringAcceptingInteger, StringEnum } from '../http/schemas.ts';
import { EXTENDED_DATA_MAX_BYTES, UNIT_STATUSES } from './rules.ts';
import { MAX_BODY_DEPTH } from '../http/validation.ts';
import { ACCESS_CODE_LENGTH, FACILITY_FIELDS } from '../tenancy/index.ts';

/**
 * The widest code any facility's rules admit: letters and digits, as long as a rule may say. It is the
 * schema's bound; the facility's own rules (SPEC §1 accessCodeRules) are checked by the operation.
 */
const ACCESS_CODE_PATTERN = `^[0-9A-Za-z]{${ACCESS_CODE_LENGTH.min},${ACCESS_CODE_LENGTH.max}}$`;

// ---- what the routes' documentation shares ----

/**
 * A refusal a route documents itself (a 409 of its rules, a 404 the guard does not give), as
 * problem+json, with what it means.
 */

export const FACILITY_TAGS = ['access control'];

export const COMMAND_NOTE =
  'The change writes one command for the facility’s gateway controller in the same transaction ' +
  '(none with the deprecated suppressCommands).';
export const REPEAT_NOTE =
  'Repeating an action whose result already holds answers 200 with the resource unchanged and sends no command.';

export const CONFLICT_NOTE =
  'An ACCESS_CODE_IN_USE answer tells that the code opens the gate: it is recorded in the code-read audit, and a ' +
  'key gets ACCESS_CODE_CONFLICTS_PER_MINUTE (5) of them a minute; beyond, its changes that set a code answer 429 ' +
  'ACCESS_CODE_CONFLICTS_THROTTLED with Retry-After without running, whether the code is taken or free.';
export const CODES_NOTE =
  'Each visitor carries its gate code (`code`) only for a token with the scope accesscontrol:codes, which an ' +
  'operator grants to an account key by name; every such read is recorded for audit (who, when, which visitors — ' +
  'never the code). Without the scope no `code` field is present.';

const facilityId = EntityId('The facility id.');
export const FacilityParams = Type.Object({ facilityId });
export const UnitParams = Type.Object({ facilityId, unitId: EntityId('The unit id.') });
export const VisitorParams = Type.Object({ facilityId, visitorId: EntityId('The visitor id.') });

export const SUPPRESS_NOTE =
  'Deprecated, slated for revision: skips the command of this change, so the controller does not learn of it until a ' +
  'refresh. Prefer plain changes: each becomes one small command.';

export const ChangeQuery = Type.Object({
  suppressCommands: Type.Optional(Type.Boolean({ description: SUPPRESS_NOTE, deprecated: true })),
});

const SuppressField = Type.Optional(Type.Boolean({ description: SUPPRESS_NOTE, deprecated: true }));

/** suppressCommands=true as a query flag or a body field. */
export const suppressed = (request: { query: { suppressCommands?: boolean }; body: unknown }) =>
  request.query.suppressCommands === true ||
  (request.body as { suppressCommands?: unknown } | null | undefined)?.suppressCommands === true;

const extendedDataOf = (description: string) =>
  Type.Record(Type.String(), Type.Unknown(), { maxProperties: 100, description });

/** extendedData as sent: an object, or null (nothing). */
export const ExtendedData = Nullable(
  extendedDataOf(
    'Free-form data of the PMS: any JSON object (null values allowed), at most 100 keys and ' +
      `${EXTENDED_DATA_MAX_BYTES} bytes, nesting at most ${MAX_BODY_DEPTH - 1} levels counting itself ` +
      `(a request body nests at most ${MAX_BODY_DEPTH}); stored and returned as sent. null stores nothing.`,
  ),
);

/** extendedData as read: {} when nothing was stored, never null (clients read its keys without a null check). */
const StoredExtendedData = extendedDataOf('The object stored, as sent; {} when nothing was stored (never null).');

export const PageQuery = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 10_000,
      description: 'At most this many items (1–10,000). Without it, every item.',
    }),
  ),
  offset: Type.Optional(Type.Integer({ minimum: 0, description: 'Skip this many items first.' })),
};

export const Facility = Type.Object(
  { ...FACILITY_FIELDS, timeZone: Type.String({ description: 'IANA time zone; time groups are in this local time.' }) },
  { $id: 'Facility' },
);

export const PropertyNumberQuery = Type.Object({
  propertyNumber: Type.String({ minLength: 1, maxLength: 50, description: 'The facility’s property number.' }),
});

// The PMS's own data on the unit in the examples below: what extendedData is for.
const unitExtendedData = { pmsUnitId: 'U-88412', size: '10x10' };

export const Unit = Type.Object(
  {
    id: EntityId('The unit id.'),
    unitNumber: Type.String(),
    status: StringEnum(UNIT_STATUSES),
    facilityId: EntityId('The facility id.'),
    propertyNumber: Nullable(Type.String({ description: 'The facility’s property number.' })),
    extendedData: StoredExtendedData,
  },
  {
    $id: 'Unit',
    examples: [
      {
        id: 301,
        unitNumber: 'A-101',
        status: 'Vacant',
        facilityId: 12,
        propertyNumber: 'SS-0012',
        extendedData: unitExtendedData,
      },
    ],
  },
);

// Named: the access-control face takes its bodies in three media types (src/http/lenient.ts).
export const CreateUnitBody = Type.Object(
  {
    unitNumber: Type.String({
      minLength: 1,
      maxLength: 50,
      description: '1–50 characters, unique among the facility’s units.',
    }),
    extendedData: Type.Optional(ExtendedData),
    suppressCommands: SuppressField,
  },
  { $id: 'CreateUnitRequest', examples: [{ unitNumber: 'A-101', extendedData: unitExtendedData }] },
);

/** Action routes take no body; an empty body (any content type) or a JSON object is accepted. */
export const ActionBody = Nullable(Type.Object({ suppressCommands: SuppressField }));

/** The visitor of the examples: a tenant of unit A-101 at facility 12. */
const exampleVisitor = {
  id: 5821,
  name: 'Maria Lopez',
  firstName: 'Maria',
  lastName: 'Lopez',
  unitId: 301,
  unitNumber: 'A-101',
  isTenant: true,
  isPortalVisitor: false,
  email: 'maria.lopez@example.com',
  mobilePhoneNumber: '5551234567',
  contactMethodPreference: 'Email',
  countryCode: '1',
  timeGroupId: 23,
  timeGroupName: '24 Hours',
  accessProfileId: 24,
  accessProfileName: 'All Access',
  isEnabled: true,
  isLockedOut: false,
  extendedData: { pmsTenantId: 'T-20931' },
};

/** A second visitor of unit A-101: a guest of the tenant, on a narrower time group. */
const exampleGuest = {
  ...exampleVisitor,
  id: 5822,
  name: 'Daniel Lopez',
  firstName: 'Daniel',
  isTenant: false,
  email: null,
  mobilePhoneNumber: null,
  contactMethodPreference: null,
  countryCode: null,
  timeGroupId: 25,
  timeGroupName: 'Business Hours',
  extendedData: {},
};

/** The facility's visitors, as listVisitors answers them (a token without accesscontrol:codes). */
export const VISITORS_EXAMPLE = [exampleVisitor, exampleGuest];

export const Visitor = Type.Object(
  {
    id: EntityId('The visitor id.'),
    name: Type.String({ description: '"First Last".' }),
    firstName: Type.String(),
    lastName: Type.String(),
    unitId: Nullable(EntityId('The visitor’s unit; null for a visitor who is not a tenant and has none.')),
    unitNumber: Nullable(Type.String()),
    isTenant: Type.Boolean(),
    isPortalVisitor: Type.Boolean(),
    email: Nullable(Type.String()),
    mobilePhoneNumber: Nullable(Type.String()),
    contactMethodPreference: Nullable(Type.String()),
    countryCode: Nullable(Type.String()),
    timeGroupId: EntityId('The time group.'),
    timeGroupName: Type.String(),
    accessProfileId: EntityId('The access profile.'),
    accessProfileName: Type.String(),
    isEnabled: Type.Boolean({ description: 'False after disable (the visitor is locked out), true after enable.' }),
    isLockedOut: Type.Boolean({ description: 'The gate refuses this visitor: disabled, or their unit is Delinquent.' }),
    extendedData: StoredExtendedData,
    code: Type.Optional(
      Type.String({
        pattern: ACCESS_CODE_PATTERN,
        description:
          'The gate code (digits, leading zeros kept; letters in upper case): only for a token with the scope ' +
          'accesscontrol:codes, and every such read is recorded for audit. Absent otherwise.',
      }),
    ),
  },
  { $id: 'Visitor' },
);

// A string of letters and digits, or a JSON number, read as its digits before validation (the face's
// lenient bodies, src/http/lenient.ts). The schema holds it to the widest rule a facility may have;
// the facility's own rules (accessCodeRules) are checked by the operation, and a 400 joins both.
const AccessCode = StringAcceptingInteger({
  pattern: ACCESS_CODE_PATTERN,
  description:
    'Gate code, following the facility’s accessCodeRules (GET /facilities/{facilityId}; default 4 to 10 digits), ' +
    'else 400 naming accessCode with the rule in words ("must be 4 to 10 digits"). A string ("0042"; letters where ' +
    'the rules allow them, compared without regard to case and kept in upper case) or a whole number (42, read as ' +
    'its digits; a number cannot keep leading zeros). An update that sends the visitor’s code unchanged is accepted ' +
    'whatever the rules now say. Unique among the facility’s enabled visitors. Write-only: never returned.',
  writeOnly: true,
});

const DefaultableId = (what: string) =>
  Type.Optional(
    Nullable(Type.Integer({ minimum: 0, description: `The ${what} id; 0 or null mean the facility's default.` })),
  );

const visitorFields = {
  accessCode: AccessCode,
  firstName: Type.String({ minLength: 1, maxLength: 100 }),
  lastName: Type.String({ maxLength: 100 }),
  email: Type.Optional(Nullable(Type.String({ maxLength: 254, description: 'Empty means none.' }))),
  mobilePhoneNumber: Type.Optional(Nullable(Type.String({ maxLength: 32, description: 'Empty means none.' }))),
  contactMethodPreference: Type.Optional(
    Nullable(
      Type.String({ maxLength: 50, description: 'How the tenant prefers to be contacted (as the PMS says it).' }),
    ),
  ),
  countryCode: Type.Optional(
    Nullable(Type.String({ maxLength: 10, description: 'The phone number’s country calling code.' })),
  ),
  isTenant: Type.Boolean({
    description:
      'A tenant needs a unit and makes a Vacant unit Rented; a visitor who is not a tenant needs a Rented or ' +
      'Delinquent unit, or no unit at all (a portal visitor, a facility-wide guest).',
  }),
  isPortalVisitor: Type.Optional(Type.Boolean()),
  timeGroupId: DefaultableId('time group'),
  accessProfileId: DefaultableId('access profile'),
  extendedData: Type.Optional(ExtendedData),
  suppressCommands: SuppressField,
};

export const CreateVisitorBody = Type.Object(
  {
    unitId: Type.Optional(
      Nullable(EntityId('A unit of this facility; required for a tenant, null or absent for a visitor without one.')),
    ),
    ...visitorFields,
  },
  {
    $id: 'CreateVisitorRequest',
    examples: [
      {
        unitId: 301,
        accessCode: '0042',
        firstName: 'Maria',
        lastName: 'Lopez',
        email: 'maria.lopez@example.com',
        mobilePhoneNumber: '5551234567',
        contactMethodPreference: 'Email',
        countryCode: '1',
        isTenant: true,
        extendedData: { pmsTenantId: 'T-20931' },
      },
    ],
  },
);

export const UpdateVisitorBody = Type.Object(
  {
    unitId: Type.Optional(
      Nullable(
        EntityId('Moves the visitor to this unit of the facility; null takes a visitor who is not a tenant off it.'),
      ),
    ),
    accessCode: Type.Optional(AccessCode),
    firstName: Type.Optional(visitorFields.firstName),
    lastName: Type.Optional(visitorFields.lastName),
    email: visitorFields.email,
    mobilePhoneNumber: visitorFields.mobilePhoneNumber,
    contactMethodPreference: visitorFields.contactMethodPreference,
    countryCode: visitorFields.countryCode,
    isTenant: Type.Optional(visitorFields.isTenant),
    isPortalVisitor: visitorFields.isPortalVisitor,
    timeGroupId: visitorFields.timeGroupId,
    accessProfileId: visitorFields.accessProfileId,
    extendedData: visitorFields.extendedData,
    suppressCommands: SuppressField,
  },
  { $id: 'UpdateVisitorRequest' },
);

export const VisitorWithUnit = Type.Object(
  {
    visitor: Visitor,
    unit: Nullable(Unit),
  },
  {
    $id: 'VisitorWithUnit',
    examples: [
      {
        visitor: exampleVisitor,
        unit: {
          id: 301,
          unitNumber: 'A-101',
          status: 'Rented',
          facilityId: 12,
          propertyNumber: 'SS-0012',
          extendedData: unitExtendedData,
        },
      },
    ],
  },
);

export const TimeGroup = Type.Object(
  {
    id: EntityId('The time group id.'),
    name: Type.String(),
    isDefault: Type.Boolean(),
    windows: Type.Array(
      Type.Object({
        days: Type.Array(Type.Integer({ minimum: 0, maximum: 6 }), { description: '0 = Sunday … 6 = Saturday.' }),
        start: Type.String({ description: 'HH:MM, facility local time.' }),
        end: Type.String({
          description: 'HH:MM; 24:00 is the end of the day; an end before the start runs overnight.',
        }),
      }),
    ),
  },
  { $id: 'TimeGroup' },
);

export const AccessProfile = Type.Object(
  {
    id: EntityId('The access profile id.'),
    name: Type.String(),
    isDefault: Type.Boolean(),
    accessAreas: Nullable(
      Type.Array(Type.String(), {
        description: 'Access areas whose keypads admit the visitor; null means every area.',
      }),
    ),
  },
  { $id: 'AccessProfile' },
);

export const RefreshResult = Type.Object(
  {
    command: Type.Object({ id: Type.String(), sequence: Type.Integer(), type: Type.String(), status: Type.String() }),
    count: Type.Integer({ description: 'Units or visitors in the command.' }),
  },
  { $id: 'RefreshResult' },
);

/** The schema of a deprecated full-state refresh (of the units, or of the visitors). */
export const refreshSchema = (operationId: string, summary: string) => ({
  operationId,
  tags: FACILITY_TAGS,
  deprecated: true,
  summary,
  description:
    'Slated for revision: plain changes already reach the controller one command each; use this only after changes ' +
    'made with suppressCommands. Answers 202 with the command. No body needed.',
  params: FacilityParams,
  body: ActionBody,
  response: {
    202: Answer('Accepted: the command, written for the controller, and how many it carries.', RefreshResult),
  },
});

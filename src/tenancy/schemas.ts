// TypeBox schemas of the tenancy face's admin routes.
import { Type } from '@fastify/type-provider-typebox';
import { EntityId, Nullable, StringEnum } from '../http/schemas.ts';
import { ACCESS_CODE_CHARACTERS, ACCESS_CODE_LENGTH, DEFAULT_ACCESS_CODE_RULES } from './rules.ts';

export const tags = ['admin'];

export const Account = Type.Object(
  {
    id: EntityId('The account id.'),
    name: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    sandbox: Type.Boolean({
      description: 'Whether the account is a sandbox (an integrator’s, owned by another account).',
    }),
    ownerAccountId: Nullable(EntityId('The account that owns this sandbox; null for a production account.')),
  },
  {
    $id: 'Account',
    examples: [
      {
        id: 7,
        name: 'Sunrise Self Storage',
        createdAt: '2026-11-25T18:04:12.351Z',
        sandbox: false,
        ownerAccountId: null,
      },
    ],
  },
);

export const CreateAccountBody = Type.Object(
  { name: Type.String({ description: '1–200 characters.' }) },
  { examples: [{ name: 'Sunrise Self Storage' }] },
);

/** A text or null, described (and marked deprecated) on the property itself, where generators read it. */
export const NullableText = (description: string, options: { deprecated?: true } = {}) =>
  Type.Union([Type.String(), Type.Null()], { description, ...options });

/** What `addressLine` is, on reads and writes: said once, for every schema that carries it. */
export const ADDRESS_LINE_ALIAS =
  'Deprecated: addressLine1 under the name it was shipped with, before the address had two lines. ' +
  'Reads carry both names with the same value. A write may send either; when both carry text they must ' +
  'be equal (else 400 naming addressLine), and null or blank counts as not sent. Send addressLine1.';

const { minLength: defaultMin, maxLength: defaultMax, characters: defaultCharacters } = DEFAULT_ACCESS_CODE_RULES;

/** What the gate-code rules are and do: said once, on the read and on the writes. */
export const ACCESS_CODE_RULES_NOTE =
  'The facility’s gate-code rules: every code a PMS sends for a visitor (create, or update with accessCode) must ' +
  'follow them, else 400 naming accessCode with the rule in words ("must be 4 to 10 digits"). Letters compare ' +
  'without regard to case (a keypad has one case): a code is kept, and given to the controller, in upper case. ' +
  'Codes stored before a change of the rules are not re-checked: an update without accessCode, or with the ' +
  'visitor’s code unchanged, keeps it. ' +
  `Default: ${defaultCharacters}, ${defaultMin} to ${defaultMax} characters.`;

const CHARACTERS_NOTE = 'digits: 0–9 only; alphanumeric: letters A–Z (either case) and digits.';
const LENGTH_NOTE = `${ACCESS_CODE_LENGTH.min}–${ACCESS_CODE_LENGTH.max}; minLength at most maxLength.`;

export const AccessCodeRules = Type.Object(
  {
    characters: StringEnum(ACCESS_CODE_CHARACTERS, { description: CHARACTERS_NOTE }),
    minLength: Type.Integer({ minimum: ACCESS_CODE_LENGTH.min, maximum: ACCESS_CODE_LENGTH.max }),
    maxLength: Type.Integer({ minimum: ACCESS_CODE_LENGTH.min, maximum: ACCESS_CODE_LENGTH.max }),
  },
  { $id: 'AccessCodeRules', description: ACCESS_CODE_RULES_NOTE, examples: [DEFAULT_ACCESS_CODE_RULES] },
);

/** The rules as a write sends them: a sub-field left out takes the default (create) or keeps its value (update). */
export const AccessCodeRulesChange = (leftOut: string, options: { minProperties?: number } = {}) =>
  Type.Object(
    {
      characters: Type.Optional(StringEnum(ACCESS_CODE_CHARACTERS, { description: CHARACTERS_NOTE })),
      minLength: Type.Optional(
        Type.Integer({ minimum: ACCESS_CODE_LENGTH.min, maximum: ACCESS_CODE_LENGTH.max, description: LENGTH_NOTE }),
      ),
      maxLength: Type.Optional(
        Type.Integer({ minimum: ACCESS_CODE_LENGTH.min, maximum: ACCESS_CODE_LENGTH.max, description: LENGTH_NOTE }),
      ),
    },
    {
      ...options,
      description: `${ACCESS_CODE_RULES_NOTE} ${leftOut}`,
      examples: [{ characters: 'alphanumeric', minLength: 6, maxLength: 8 }],
    },
  );

/** A facility's fields as every view shows them (the account's view in access control adds nothing but descriptions). */
export const FACILITY_FIELDS = {
  id: EntityId('The facility id.'),
  accountId: EntityId('The owning account.'),
  name: Type.String(),
  propertyNumber: Nullable(
    Type.String({ description: 'Unique within the service: PMS integrations link a site by it.' }),
  ),
  timeZone: Type.String(),
  addressLine1: NullableText('First street line of the postal address.'),
  addressLine2: NullableText('Second street line of the postal address (suite, building, …).'),
  city: Nullable(Type.String()),
  state: Nullable(Type.String()),
  postalCode: Nullable(Type.String()),
  country: Nullable(Type.String()),
  addressLine: NullableText(ADDRESS_LINE_ALIAS, { deprecated: true }),
  accessCodeRules: AccessCodeRules,
};

// Named AdminFacility: the facility as the operator created it (the access-control face's Facility is the account's view).
export const Facility = Type.Object(
  {
    ...FACILITY_FIELDS,
    guid: Nullable(Type.String()),
    charityEnrolled: Type.Boolean(),
  },
  { $id: 'AdminFacility' },
);

export const Application = Type.Object(
  {
    id: Type.String(),
    clientId: Type.String(),
    name: Type.String(),
    clientType: Nullable(Type.String()),
    facilityGuids: Type.Array(Type.String()),
    operator: Type.Boolean(),
    createdAt: Type.String({ format: 'date-time' }),
    revokedAt: Nullable(Type.String({ format: 'date-time' })),
  },
  { $id: 'Application' },
);

export const AccountKey = Type.Object(
  {
    id: Type.String(),
    apiKey: Type.String(),
    accountId: EntityId('The account the key acts for.'),
    clientId: Type.String(),
    scopes: Type.Array(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
    revokedAt: Nullable(Type.String({ format: 'date-time' })),
  },
  { $id: 'AccountKey' },
);

export const CreatedAccountKey = Type.Object(
  {
    id: Type.String(),
    apiKey: Type.String({ description: "The password grant's username." }),
    apiSecret: Type.String({ description: "The password grant's password. Shown once; stored only as a hash." }),
  },
  { $id: 'CreatedAccountKey' },
);

export const Gateway = Type.Object(
  {
    id: Type.String(),
    clientId: Type.String(),
    facilityId: EntityId('The facility of the controller.'),
    createdAt: Type.String({ format: 'date-time' }),
    revokedAt: Nullable(Type.String({ format: 'date-time' })),
  },
  { $id: 'GatewayCredential' },
);

/** A new application's or gateway controller's client credentials. */
export const ClientSecret = Type.Object(
  {
    id: Type.String(),
    clientId: Type.String(),
    clientSecret: Type.String({ description: 'Shown once; stored only as a hash.' }),
  },
  { $id: 'ClientCredentials' },
);

/** What a revocation answers: the credential it names, revoked. */
export const Revoked = Type.Object(
  {
    clientId: Type.Optional(Type.String({ description: 'An application or a gateway controller.' })),
    apiKey: Type.Optional(Type.String({ description: 'An account key.' })),
    revoked: Type.Literal(true),
  },
  { $id: 'Revocation' },
);

/** An error answer a route documents itself (problem+json, with what it means there). */

export const REVOKED_NOT_FOUND =
  'No active credential of that kind has that id (NOT_FOUND): unknown, or already revoked.';

export const REVOKE_NOTE =
  'Revocation refuses new tokens at once; tokens already issued are refused by the guard within 5 seconds ' +
  '(it re-checks each credential at most every 5 s), and refresh tokens of the credential are revoked.';

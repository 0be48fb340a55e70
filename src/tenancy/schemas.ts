// TypeBox schemas of the tenancy face's admin routes.
import { Type } from '@fastify/type-provider-typebox';
import { EntityId, Nullable } from '../http/schemas.ts';

export const tags = ['admin'];

export const Account = Type.Object(
  { id: EntityId('The account id.'), name: Type.String(), createdAt: Type.String({ format: 'date-time' }) },
  { $id: 'Account', examples: [{ id: 7, name: 'Sunrise Self Storage', createdAt: '2026-11-25T18:04:12.351Z' }] },
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

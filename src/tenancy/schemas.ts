// TypeBox schemas of the tenancy face's admin routes.
import { Type } from '@fastify/type-provider-typebox';
import { EntityId, Nullable } from '../http/schemas.ts';

export const tags = ['admin'];

export const Account = Type.Object({ id: EntityId('The account id.'), name: Type.String(), createdAt: Type.String() });

export const Facility = Type.Object({
  id: EntityId('The facility id.'),
  accountId: EntityId('The owning account.'),
  name: Type.String(),
  propertyNumber: Nullable(
    Type.String({ description: 'Unique within the service: PMS integrations link a site by it.' }),
  ),
  timeZone: Type.String(),
  addressLine: Nullable(Type.String()),
  city: Nullable(Type.String()),
  state: Nullable(Type.String()),
  postalCode: Nullable(Type.String()),
  country: Nullable(Type.String()),
  guid: Nullable(Type.String()),
  charityEnrolled: Type.Boolean(),
});

export const Application = Type.Object({
  id: Type.String(),
  clientId: Type.String(),
  name: Type.String(),
  clientType: Nullable(Type.String()),
  facilityGuids: Type.Array(Type.String()),
  operator: Type.Boolean(),
  createdAt: Type.String(),
  revokedAt: Nullable(Type.String()),
});

export const AccountKey = Type.Object({
  id: Type.String(),
  apiKey: Type.String(),
  accountId: EntityId('The account the key acts for.'),
  clientId: Type.String(),
  scopes: Type.Array(Type.String()),
  createdAt: Type.String(),
  revokedAt: Nullable(Type.String()),
});

export const Gateway = Type.Object({
  id: Type.String(),
  clientId: Type.String(),
  facilityId: EntityId('The facility of the controller.'),
  createdAt: Type.String(),
  revokedAt: Nullable(Type.String()),
});

export const ClientSecret = Type.Object({
  id: Type.String(),
  clientId: Type.String(),
  clientSecret: Type.String({ description: 'Shown once; stored only as a hash.' }),
});

export const Revoked = Type.Object({ revoked: Type.Literal(true) }, { additionalProperties: true });

export const REVOKE_NOTE =
  'Revocation refuses new tokens at once; tokens already issued are refused by the guard within 5 seconds ' +
  '(it re-checks each credential at most every 5 s), and refresh tokens of the credential are revoked.';

// TypeBox schemas of the tenancy face's admin routes.
import { Type } from '@fastify/type-provider-typebox';
import { Nullable } from '../http/schemas.ts';

export const tags = ['admin'];

export const Account = Type.Object({ id: Type.String(), name: Type.String(), createdAt: Type.String() });

export const Facility = Type.Object({
  id: Type.String(),
  accountId: Type.String(),
  name: Type.String(),
  propertyNumber: Nullable(Type.String()),
  timeZone: Type.String(),
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
  accountId: Type.String(),
  clientId: Type.String(),
  scopes: Type.Array(Type.String()),
  createdAt: Type.String(),
  revokedAt: Nullable(Type.String()),
});

export const Gateway = Type.Object({
  id: Type.String(),
  clientId: Type.String(),
  facilityId: Type.String(),
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

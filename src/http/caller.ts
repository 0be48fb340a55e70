// Who is calling: the principal a verified token speaks for (built from the token's claims by the
// guard, src/auth/guard.ts; routes read it with principalOf and never look at claims themselves),
// the facility a route names that the caller may see (facilityOf), and the scopes each kind of
// caller may hold. One mechanism every face reads; the auth face fills it in.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { EntityId } from '../ids.ts';
import type { Scope } from './access.ts';

interface PrincipalBase {
  /** The credential the token was issued for: revoking it ends the token. */
  credentialId: string;
  clientId: string;
  scopes: Scope[];
  tokenId: string;
  /** When the token expires (epoch ms): what it opened (a live stream) ends then too. */
  expiresAt: number;
}

/** A PMS acting for an account (password grant with the account's API key). */
export interface AccountPrincipal extends PrincipalBase {
  kind: 'account';
  accountId: EntityId;
  /** The account is a sandbox (the token's `sandbox` claim, src/sandbox/); absent for a production account. */
  sandbox?: true;
}

/** An auction partner's application (client_credentials with a client type). */
export interface PartnerPrincipal extends PrincipalBase {
  kind: 'partner';
  clientType: string;
  facilityGuids: string[];
}

/** One facility's gateway controller. */
export interface GatewayPrincipal extends PrincipalBase {
  kind: 'gateway';
  accountId: EntityId;
  facilityId: EntityId;
  /** The facility is a sandbox's (the token's `sandbox` claim); absent for a production facility. */
  sandbox?: true;
}

/** The service operator (support, administration). */
export interface OperatorPrincipal extends PrincipalBase {
  kind: 'operator';
}

export type Principal = AccountPrincipal | PartnerPrincipal | GatewayPrincipal | OperatorPrincipal;
export type PrincipalKind = Principal['kind'];

/** A credential, named across kinds: `<kind>:<credentialId>` (a stream's holder, a throttle's or a cache's key). */
export const credentialKey = (principal: Pick<Principal, 'kind' | 'credentialId'>): string =>
  `${principal.kind}:${principal.credentialId}`;

export const ALL_SCOPES: Scope[] = [
  'auctions:write',
  'auctions:read',
  'accesscontrol:read',
  'accesscontrol:write',
  'accesscontrol:codes',
  'accessevent:read',
  'webhooks',
  'gateway',
  'admin',
];
// New account keys may manage their webhook subscriptions (issue 14); keys made before keep the
// scopes they were given (the operator issues a new key, or names the scope, to add it).
export const DEFAULT_ACCOUNT_SCOPES: Scope[] = [
  'accesscontrol:read',
  'accesscontrol:write',
  'accessevent:read',
  'webhooks',
];
/** What an account key may hold: the defaults, and the gate-code scope when the operator names it. */
export const ACCOUNT_KEY_SCOPES: Scope[] = [...DEFAULT_ACCOUNT_SCOPES, 'accesscontrol:codes'];
export const PARTNER_SCOPES: Scope[] = ['auctions:write', 'auctions:read', 'webhooks'];
export const GATEWAY_SCOPES: Scope[] = ['gateway'];
export const OPERATOR_SCOPES: Scope[] = ['admin'];

export const isScope = (value: string): value is Scope => (ALL_SCOPES as string[]).includes(value);

/**
 * A facility's gate-code rules (SPEC §1 `accessCodeRules`): which characters a code may have and how
 * long it may be. Tenancy keeps them (the operator sets them), access control holds every new code to them.
 */
export interface AccessCodeRules {
  characters: 'digits' | 'alphanumeric';
  minLength: number;
  maxLength: number;
}

/** A facility the caller may see, as every face shows it. */
export interface VisibleFacility {
  id: EntityId;
  accountId: EntityId;
  name: string;
  propertyNumber: string | null;
  timeZone: string;
  addressLine1: string | null;
  addressLine2: string | null;
  city: string | null;
  state: string | null;
  postalCode: string | null;
  country: string | null;
  /** Deprecated alias of addressLine1, shipped before the address had two lines: always its value. */
  addressLine: string | null;
  accessCodeRules: AccessCodeRules;
  guid: string | null;
  charityEnrolled: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    facility: VisibleFacility | null;
    /** Why the bearer token was refused, kept from authentication until authorization throws it. */
    authFailure: unknown;
  }
}

export function unauthorized(description: string): AppError {
  return new AppError(401, 'INVALID_TOKEN', description, [], {
    'www-authenticate': `Bearer realm="gatehouse", error="invalid_token", error_description="${description}"`,
  });
}

/** The verified principal of a protected route's request. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw unauthorized('A bearer token is required.');
  return request.principal;
}

/** Who an operator's or a partner's change is recorded as (auction history, a resolved notification): `<kind>:<clientId>`. */
export function actorOf(request: FastifyRequest): string {
  const principal = principalOf(request);
  return `${principal.kind}:${principal.clientId}`;
}

/** The facility a route with facilityParam names, which the guard found the caller may see. */
export function facilityOf(request: FastifyRequest): VisibleFacility {
  if (!request.facility) throw new Error('route did not declare facilityParam');
  return request.facility;
}

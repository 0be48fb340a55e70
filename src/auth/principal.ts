// Who a verified token speaks for. Built from the token's claims; routes read it as
// `request.principal` and never look at claims themselves.
import type { Scope } from '../http/access.ts';
import type { EntityId } from '../ids.ts';

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
}

/** The service operator (support, administration). */
export interface OperatorPrincipal extends PrincipalBase {
  kind: 'operator';
}

export type Principal = AccountPrincipal | PartnerPrincipal | GatewayPrincipal | OperatorPrincipal;
export type PrincipalKind = Principal['kind'];

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

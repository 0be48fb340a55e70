// Who a verified token speaks for. Built from the token's claims; routes read it as
// `request.principal` and never look at claims themselves.
import type { Scope } from '../http/access.ts';

interface PrincipalBase {
  /** The credential the token was issued for: revoking it ends the token. */
  credentialId: string;
  clientId: string;
  scopes: Scope[];
  tokenId: string;
}

/** A PMS acting for an account (password grant with the account's API key). */
export interface AccountPrincipal extends PrincipalBase {
  kind: 'account';
  accountId: string;
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
  accountId: string;
  facilityId: string;
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
  'accessevent:read',
  'gateway',
  'admin',
];
export const DEFAULT_ACCOUNT_SCOPES: Scope[] = ['accesscontrol:read', 'accesscontrol:write', 'accessevent:read'];
export const PARTNER_SCOPES: Scope[] = ['auctions:write', 'auctions:read'];
export const GATEWAY_SCOPES: Scope[] = ['gateway'];
export const OPERATOR_SCOPES: Scope[] = ['admin'];

export const isScope = (value: string): value is Scope => (ALL_SCOPES as string[]).includes(value);

// Access tokens: ES256 JWTs. Signing and verification, and the mapping between claims and the
// Principal. Verification accepts only ES256 with a published key, our issuer and audience:
// `alg: none`, HS256 (with the public key as a secret), a foreign key, a tampered payload, an
// expired token and one issued in the future (beyond TOKEN_CLOCK_TOLERANCE_SECONDS) all fail.
import { isEntityId } from '../ids.ts';
import { randomUUID } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Config } from '../config.ts';
import { isScope, type Principal } from '../http/caller.ts';
import { SIGNING_ALG, type SigningKeys } from './keys.ts';

export const TOKEN_AUDIENCE = 'gatehouse';

/**
 * How far a token's `iat` may lie ahead of this instance's clock: the instances' clocks differ a
 * little, never by more. A token issued further ahead is refused (jose checks `iat` only when
 * given maxTokenAge, so the check is ours).
 */
export const TOKEN_CLOCK_TOLERANCE_SECONDS = 60;

export type PrincipalWithoutToken = Principal extends infer P
  ? P extends Principal
    ? Omit<P, 'tokenId' | 'expiresAt'>
    : never
  : never;

interface GatehouseClaims extends JWTPayload {
  scope: string;
  client_id: string;
  kind: Principal['kind'];
  cid: string;
  /** Integer ids as JSON numbers (SPEC §1). */
  account_id?: number;
  facility_id?: number;
  facility_guids?: string[];
  client_type?: string;
  /** Present, and true, only on the tokens of a sandbox's credentials (account key or gateway). */
  sandbox?: true;
}

export class InvalidTokenError extends Error {
  override name = 'InvalidTokenError';
}

export class TokenService {
  private readonly jwks: ReturnType<typeof createLocalJWKSet>;

  constructor(
    private readonly keys: SigningKeys,
    private readonly config: Pick<Config, 'jwtIssuer' | 'tokenTtlSeconds'>,
  ) {
    this.jwks = createLocalJWKSet({ keys: keys.publicJwks });
  }

  get publicJwks() {
    return { keys: this.keys.publicJwks };
  }

  async issue(principal: PrincipalWithoutToken): Promise<{ accessToken: string; expiresIn: number; tokenId: string }> {
    const claims: GatehouseClaims = {
      scope: principal.scopes.join(' '),
      client_id: principal.clientId,
      kind: principal.kind,
      cid: principal.credentialId,
    };
    let subject: string;
    switch (principal.kind) {
      case 'account':
        claims.account_id = principal.accountId;
        if (principal.sandbox) claims.sandbox = true;
        subject = `account:${principal.accountId}`;
        break;
      case 'gateway':
        claims.account_id = principal.accountId;
        claims.facility_id = principal.facilityId;
        if (principal.sandbox) claims.sandbox = true;
        subject = `gateway:${principal.facilityId}`;
        break;
      case 'partner':
        claims.client_type = principal.clientType;
        claims.facility_guids = principal.facilityGuids;
        subject = `client:${principal.clientId}`;
        break;
      case 'operator':
        subject = `client:${principal.clientId}`;
        break;
    }
    const tokenId = randomUUID();
    const accessToken = await new SignJWT(claims)
      .setProtectedHeader({ alg: SIGNING_ALG, kid: this.keys.current.kid, typ: 'at+jwt' })
      .setIssuer(this.config.jwtIssuer)
      .setAudience(TOKEN_AUDIENCE)
      .setSubject(subject)
      .setIssuedAt()
      .setExpirationTime(`${this.config.tokenTtlSeconds}s`)
      .setJti(tokenId)
      .sign(this.keys.current.privateKey);
    return { accessToken, expiresIn: this.config.tokenTtlSeconds, tokenId };
  }

  // Clients reuse a token for its whole life: remember each verified token (by its exact bytes)
  // until it expires, so that the signature is checked once, not on every request.
  private readonly verified = new Map<string, { principal: Principal; expiresAt: number }>();

  async verify(token: string): Promise<Principal> {
    const hit = this.verified.get(token);
    if (hit) {
      if (hit.expiresAt > Date.now()) return hit.principal;
      this.verified.delete(token);
    }
    const { principal, expiresAt } = await this.verifySignature(token);
    if (this.verified.size >= 10_000) this.verified.clear();
    this.verified.set(token, { principal, expiresAt });
    return principal;
  }

  private async verifySignature(token: string): Promise<{ principal: Principal; expiresAt: number }> {
    let payload: GatehouseClaims;
    try {
      ({ payload } = (await jwtVerify(token, this.jwks, {
        algorithms: [SIGNING_ALG],
        issuer: this.config.jwtIssuer,
        audience: TOKEN_AUDIENCE,
        requiredClaims: ['exp', 'iat', 'jti', 'sub'],
      })) as { payload: GatehouseClaims });
    } catch (error) {
      throw new InvalidTokenError(
        (error as { code?: string }).code === 'ERR_JWT_EXPIRED' ? 'The token has expired.' : 'The token is not valid.',
      );
    }
    if (issuedTooFarAhead(payload.iat, Date.now())) throw new InvalidTokenError('The token is not valid.');
    return { principal: principalFromClaims(payload), expiresAt: payload.exp! * 1000 };
  }
}

/** An `iat` (required, so present) further ahead of `nowMs` than the clock tolerance. */
export const issuedTooFarAhead = (iat: number | undefined, nowMs: number) =>
  typeof iat !== 'number' || iat > Math.floor(nowMs / 1000) + TOKEN_CLOCK_TOLERANCE_SECONDS;

/** The principal's sandbox mark: only a `sandbox: true` claim makes one (anything else is production). */
const sandboxOf = (claims: GatehouseClaims): { sandbox?: true } => (claims.sandbox === true ? { sandbox: true } : {});

function principalFromClaims(claims: GatehouseClaims): Principal {
  const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ').filter(Boolean) : [];
  if (
    !scopes.every(isScope) ||
    typeof claims.cid !== 'string' ||
    typeof claims.client_id !== 'string' ||
    typeof claims.jti !== 'string'
  ) {
    throw new InvalidTokenError('The token is not valid.');
  }
  const base = {
    credentialId: claims.cid,
    clientId: claims.client_id,
    scopes: scopes.filter(isScope),
    tokenId: claims.jti,
    expiresAt: Number(claims.exp) * 1000,
  };
  switch (claims.kind) {
    case 'account':
      if (isEntityId(claims.account_id))
        return { ...base, kind: 'account', accountId: claims.account_id, ...sandboxOf(claims) };
      break;
    case 'gateway':
      if (isEntityId(claims.account_id) && isEntityId(claims.facility_id)) {
        return {
          ...base,
          kind: 'gateway',
          accountId: claims.account_id,
          facilityId: claims.facility_id,
          ...sandboxOf(claims),
        };
      }
      break;
    case 'partner':
      if (typeof claims.client_type === 'string' && Array.isArray(claims.facility_guids)) {
        return {
          ...base,
          kind: 'partner',
          clientType: claims.client_type,
          facilityGuids: claims.facility_guids.map(String),
        };
      }
      break;
    case 'operator':
      return { ...base, kind: 'operator' };
  }
  throw new InvalidTokenError('The token is not valid.');
}

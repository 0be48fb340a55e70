// The guard: every route's `config.access` is enforced here, in one onRequest hook, before the
// body is even read. 401 for a missing or bad token, 403 for a missing scope, 404 (the same body
// as a real not-found) for an account or facility the token may not see.
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/tables.ts';
import type { App } from '../http/app-type.ts';
import { AppError, notFound } from '../errors.ts';
import type { Principal } from './principal.ts';
import { InvalidTokenError, type TokenService } from './tokens.ts';
import type { CredentialStatus } from './credential-status.ts';
import { type EntityId, parseEntityId } from '../ids.ts';
import { facilityView, type FacilityView } from '../tenancy/facilities.ts';
import { facilityById } from '../tenancy/repository.ts';

/** A facility the token may see, as every face shows it. */
export type VisibleFacility = FacilityView;

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

export function facilityOf(request: FastifyRequest): VisibleFacility {
  if (!request.facility) throw new Error('route did not declare facilityParam');
  return request.facility;
}

/** Whether a principal may see a facility: the one rule used by the guard and by domain code. */
export function canSeeFacility(
  principal: Principal,
  facility: { id: EntityId; account_id: EntityId; guid: string | null },
): boolean {
  switch (principal.kind) {
    case 'account':
      return facility.account_id === principal.accountId;
    case 'gateway':
      return facility.id === principal.facilityId;
    case 'partner':
      return facility.guid !== null && principal.facilityGuids.includes(facility.guid);
    case 'operator':
      return true;
  }
}

export async function loadVisibleFacility(
  db: Db,
  principal: Principal,
  facilityId: EntityId | string | undefined,
): Promise<VisibleFacility | null> {
  const id = parseEntityId(facilityId);
  if (id === null) return null;
  const row = await facilityById(db, id);
  return row && canSeeFacility(principal, row) ? facilityView(row) : null;
}

/**
 * Two steps around the rate limiter: `onRequest` authenticates (a failure is kept, not thrown, so
 * that the limiter — a route-level onRequest hook, after this one — counts the caller and stamps
 * its RateLimit-* headers on the refusal too), then `preParsing` authorizes or refuses, still
 * before the body is read.
 */
export function registerGuard(app: App, tokens: TokenService, db: Db, status: CredentialStatus): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('facility', null);
  app.decorateRequest('authFailure', null);

  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config.access;
    if (access === undefined || access === 'public') return;
    try {
      request.principal = await authenticate(request.headers.authorization, tokens, status);
    } catch (error) {
      request.authFailure = error;
    }
  });

  app.addHook('preParsing', async (request) => {
    const access = request.routeOptions.config.access;
    if (access === undefined || access === 'public') return;
    if (request.authFailure !== null) throw request.authFailure;
    const principal = principalOf(request);
    if (!access.scopes.some((scope) => principal.scopes.includes(scope))) {
      throw new AppError(
        403,
        'INSUFFICIENT_SCOPE',
        `This operation needs the scope ${access.scopes.join(' or ')}.`,
        [],
        {
          'www-authenticate': `Bearer realm="gatehouse", error="insufficient_scope", scope="${access.scopes.join(' ')}"`,
        },
      );
    }
    const params = request.params as Record<string, string | undefined>;
    if (access.accountParam) {
      const accountId = params[access.accountParam];
      const own = principal.kind === 'account' || principal.kind === 'gateway' ? principal.accountId : null;
      if (own === null || parseEntityId(accountId) !== own) throw notFound('The account');
    }
    if (access.facilityParam) {
      const facility = await loadVisibleFacility(db, principal, params[access.facilityParam]);
      if (!facility) throw notFound('The facility');
      request.facility = facility;
    }
  });
}

async function authenticate(
  header: string | undefined,
  tokens: TokenService,
  status: CredentialStatus,
): Promise<Principal> {
  const match = typeof header === 'string' ? /^Bearer +([A-Za-z0-9\-_.~+/]+=*) *$/i.exec(header) : null;
  if (!match)
    throw unauthorized(header ? 'The Authorization header is not a bearer token.' : 'A bearer token is required.');
  let principal: Principal;
  try {
    principal = await tokens.verify(match[1]!);
  } catch (error) {
    if (error instanceof InvalidTokenError) throw unauthorized(error.message);
    throw error;
  }
  if (!(await status.isActive(principal))) throw unauthorized('The credential of this token has been revoked.');
  return principal;
}

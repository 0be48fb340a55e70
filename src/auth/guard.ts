// The guard: every route's `config.access` is enforced here, in one onRequest hook, before the
// body is even read. 401 for a missing or bad token, 403 for a missing scope, 404 (the same body
// as a real not-found) for an account or facility the token may not see.
import type { App } from '../http/app-type.ts';
import { principalOf, unauthorized, type Principal, type VisibleFacility } from '../http/caller.ts';
import { AppError, notFound } from '../errors.ts';
import { InvalidTokenError, type TokenService } from './tokens.ts';
import type { CredentialStatus } from './credential-status.ts';
import { type EntityId, parseEntityId } from '../ids.ts';

/** The facility of an id, whoever asks (the tenancy face's lookup, handed in by app.ts); null when none. */
export type FindFacility = (id: EntityId) => Promise<VisibleFacility | null>;

/** Whether a principal may see a facility. */
export function canSeeFacility(principal: Principal, facility: VisibleFacility): boolean {
  switch (principal.kind) {
    case 'account':
      return facility.accountId === principal.accountId;
    case 'gateway':
      return facility.id === principal.facilityId;
    case 'partner':
      return facility.guid !== null && principal.facilityGuids.includes(facility.guid);
    case 'operator':
      return true;
  }
}

async function loadVisibleFacility(
  findFacility: FindFacility,
  principal: Principal,
  facilityId: EntityId | string | undefined,
): Promise<VisibleFacility | null> {
  const id = parseEntityId(facilityId);
  if (id === null) return null;
  const facility = await findFacility(id);
  return facility && canSeeFacility(principal, facility) ? facility : null;
}

/**
 * Two steps around the rate limiter: `onRequest` authenticates (a failure is kept, not thrown, so
 * that the limiter — a route-level onRequest hook, after this one — counts the caller and stamps
 * its RateLimit-* headers on the refusal too), then `preParsing` authorizes or refuses, still
 * before the body is read.
 */
export function registerGuard(
  app: App,
  auth: { tokens: TokenService; credentials: CredentialStatus },
  tenancy: { findFacility: FindFacility },
): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('facility', null);
  app.decorateRequest('authFailure', null);

  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config.access;
    if (access === undefined || access === 'public') return;
    try {
      request.principal = await authenticate(request.headers.authorization, auth.tokens, auth.credentials);
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
      const facility = await loadVisibleFacility(tenancy.findFacility, principal, params[access.facilityParam]);
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

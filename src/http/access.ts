// Every route states who may call it, in its `config.access`; a route that does not is refused
// at start-up, so that nothing is ever exposed by omission. The bearer-token rules are enforced
// by the guard in src/auth/guard.ts.
import type { App as FastifyInstance } from './app-type.ts';
import { rendererFor, type FaceErrorRenderer } from './problem.ts';

export type Scope =
  | 'auctions:write'
  | 'auctions:read'
  | 'accesscontrol:read'
  | 'accesscontrol:write'
  | 'accesscontrol:codes'
  | 'accessevent:read'
  | 'webhooks'
  | 'gateway'
  | 'admin';

/** What each scope allows, for the OAuth 2.0 scheme of the documents (src/http/docs.ts). */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'auctions:write': 'Import auctions and report their outcomes (/api/3): an auction partner.',
  'auctions:read': 'Read auctions and import results (/api/3).',
  'accesscontrol:read': "Read an account's facilities, units, visitors and access settings (/facilities).",
  'accesscontrol:write': "Change an account's units, visitors and access settings (/facilities).",
  'accesscontrol:codes':
    'Visitor reads include gate codes, each read audited: an account key holds it only when the operator names it.',
  'accessevent:read': 'Read access events (/gatewayevents).',
  webhooks: 'Manage webhook subscriptions.',
  gateway: "A facility's gateway controller (/gateway/v1).",
  admin: 'The operator: accounts, applications, keys and audit records (/admin).',
};

export interface TokenAccess {
  /** The token must carry one of these scopes (else 403). */
  scopes: Scope[];
  /** A path parameter naming an account: it must be the token's own account (else 404). */
  accountParam?: string;
  /**
   * A path parameter naming a facility: it must be visible to the token (else 404) — one of the
   * account's facilities, the gateway's own facility, or one assigned to the partner. The
   * facility is then at `request.facility`.
   */
  facilityParam?: string;
}

export type RouteAccess = 'public' | TokenAccess;

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
}

// Routes added by third-party plugins that are public by nature: Swagger UI's pages, and the route
// @fastify/cors adds for preflights (`OPTIONS *`: a browser sends a preflight without credentials,
// and the plugin's onRequest hook answers it before the guard runs; see src/http/cors.ts).
const PUBLIC_PREFIXES = ['/swagger'];
const isCorsPreflightRoute = (route: { method: string | string[]; url: string }) =>
  route.url === '*' && [route.method].flat().every((method) => method === 'OPTIONS');

/**
 * Refuses a route without an access declaration, and documents from it what every route shares:
 * its `security` (either scheme — OAuth 2.0, for Swagger UI's "Authorize" to log in, or a pasted
 * bearer token — with the route's scopes; `[]` when public) and the error
 * answers the shared mechanisms give — in the body of the face's renderer — so that no route
 * file writes them by hand. A route that documents a status itself keeps its own.
 */
export function requireAccessDeclarations(app: FastifyInstance, renderers: readonly FaceErrorRenderer[]): void {
  app.addHook('onRoute', (route) => {
    let access = route.config?.access;
    if (!access) {
      if (!PUBLIC_PREFIXES.some((prefix) => route.url.startsWith(prefix)) && !isCorsPreflightRoute(route)) {
        throw new Error(`route ${route.method} ${route.url} does not declare config.access`);
      }
      access = 'public';
      route.config = { ...route.config, access };
    }
    route.schema ??= {};
    const schema = route.schema as Record<string, unknown>;
    if (schema.hide) return;
    if (access === 'public') {
      schema.security = [];
    } else {
      schema.security = [{ oauth2: access.scopes }, { bearerAuth: access.scopes }];
      const needs = `Requires a bearer token with scope ${access.scopes.map((s) => `\`${s}\``).join(' or ')}.`;
      // (A GET's HEAD twin shares its schema: the sentence is added once.)
      if (!String(schema.description ?? '').includes(needs))
        schema.description = schema.description ? `${schema.description}\n\n${needs}` : needs;
    }
    schema.response ??= {};
    const response = schema.response as Record<string, Record<string, unknown>>;
    const { body, mediaType } = rendererFor(renderers, route.url);
    const shared = new Map(errorAnswers(access, schema));
    // An error body the route documents itself is the face's too: it is answered in the face's media type.
    for (const [status, answer] of Object.entries(response)) {
      if (Number(status) >= 400 && !answer.content) {
        const { description, ...body } = answer;
        response[status] = errorAnswer(body, mediaType, description ?? shared.get(Number(status)));
      }
    }
    for (const [status, description] of shared) response[status] ??= errorAnswer(body, mediaType, description);
  });
}

const errorAnswer = (body: object, mediaType: string, description: unknown) => ({
  description: typeof description === 'string' ? description : 'The request is refused.',
  content: { [mediaType]: { schema: body } },
});

/** The error answers a route can give from the shared mechanisms, by what it declares. */
function errorAnswers(access: RouteAccess, schema: Record<string, unknown>): [number, string][] {
  const answers: [number, string][] = [];
  const takesInput = Boolean(schema.body || schema.querystring || schema.params);
  if (takesInput) answers.push([400, 'The request is invalid; every bad field is named.']);
  if (access !== 'public') {
    answers.push([401, 'No bearer token, or one that is malformed, expired, badly signed or revoked.']);
    answers.push([403, 'The token lacks the scope of this operation.']);
    if (access.accountParam || access.facilityParam)
      answers.push([404, 'No such resource, or one the token may not see (the two are indistinguishable).']);
  }
  if (schema.body) {
    answers.push([413, 'The body is larger than this route accepts.']);
    answers.push([415, 'The Content-Type is not one this route accepts.']);
  }
  answers.push([429, 'Too many requests: retry after the Retry-After seconds.']);
  answers.push([
    503,
    'The database is unavailable or too slow (DATABASE_UNAVAILABLE), or the request found no answer within the request deadline (DEADLINE_EXCEEDED): retry after the Retry-After seconds.',
  ]);
  return answers;
}

// ---- Presets: a route's `config`, by who may call it ----

/** Anyone: health, docs, JWKS, the token endpoint, public media. */
export const PUBLIC = { access: 'public' } as const satisfies { access: RouteAccess };

/** A token with one of the scopes. */
export const scoped = (...scopes: Scope[]): { access: TokenAccess } => ({ access: { scopes } });

/** A token with one of the scopes, on a facility it may see (`:facilityId`, else 404). */
export const onFacility = (...scopes: Scope[]): { access: TokenAccess } => ({
  access: { scopes, facilityParam: 'facilityId' },
});

/** A token with one of the scopes, on its own account (`:accountId`, else 404). */
export const onAccount = (...scopes: Scope[]): { access: TokenAccess } => ({
  access: { scopes, accountParam: 'accountId' },
});

/** The operator (scope admin). */
export const OPERATOR = scoped('admin');

// Every route states who may call it, in its `config.access`; a route that does not is refused
// at start-up, so that nothing is ever exposed by omission. The bearer-token rules are enforced
// by the guard in src/auth/guard.ts.
import type { App as FastifyInstance } from './app-type.ts';

export type Scope =
  | 'auctions:write'
  | 'auctions:read'
  | 'accesscontrol:read'
  | 'accesscontrol:write'
  | 'accessevent:read'
  | 'gateway'
  | 'admin';

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

// Routes added by third-party plugins that are public by nature.
const PUBLIC_PREFIXES = ['/swagger'];

export function requireAccessDeclarations(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const access = route.config?.access;
    if (access && access !== 'public') {
      // The OpenAPI document shows the security scheme and the scopes of every protected route.
      const schema = (route.schema ??= {}) as Record<string, unknown>;
      schema.security ??= [{ bearerAuth: access.scopes }];
      const needs = `Requires a bearer token with scope ${access.scopes.map((s) => `\`${s}\``).join(' or ')}.`;
      schema.description = schema.description ? `${schema.description}\n\n${needs}` : needs;
    }
    if (access) return;
    if (PUBLIC_PREFIXES.some((prefix) => route.url.startsWith(prefix))) {
      route.config = { ...route.config, access: 'public' };
      return;
    }
    throw new Error(`route ${route.method} ${route.url} does not declare config.access`);
  });
}

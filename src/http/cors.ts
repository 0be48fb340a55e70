// CORS on every route of the service (SPEC §4, §10): browser PMS tools call the API directly, from
// the origins CORS_ORIGINS allows (every origin by default). @fastify/cors does the work in an
// onRequest hook registered before the guard, so a preflight is answered before anything asks for a
// token, and every other answer — errors included: a 401 of the guard, a 429 of the limiter, a 404, a
// 500, the token endpoint's RFC 6749 errors — already carries the headers when it is rendered.
// The plugin's own route (`OPTIONS *`, where preflights are routed) is declared public by
// src/http/access.ts; the hook answers preflights before the route is reached.
import cors from '@fastify/cors';
import type { Config } from '../config.ts';
import type { App } from './app-type.ts';

/** Request headers a browser may send (the preflight's Access-Control-Allow-Headers). */
export const CORS_ALLOWED_HEADERS = [
  'authorization',
  'api-version',
  'content-type',
  'accept',
  'x-correlation-id',
  'idempotency-key',
] as const;

/**
 * Response headers a browser script may read (Access-Control-Expose-Headers): the spec's list, and the
 * other headers the service sets that a client acts on — the bearer challenge of a 401/403, the CSV
 * export's total, the legacy versions' deprecation notice. `RateLimit-Policy` is not sent, so not listed.
 */
export const CORS_EXPOSED_HEADERS = [
  'x-correlation-id',
  'retry-after',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'x-next-cursor',
  'x-total-count',
  'content-disposition',
  'www-authenticate',
  'api-supported-versions',
  'api-deprecated-versions',
  'deprecation',
  'link',
] as const;

/** Every method a route of the service answers. */
export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * How long a browser may reuse a preflight's answer. Ten minutes: a page of a PMS that calls the
 * same routes again does not pay a preflight per call, and a change of CORS_ORIGINS or of the allowed
 * headers reaches every browser within ten minutes. (Browsers cap it anyway: Chromium at 2 hours,
 * Firefox at 24.)
 */
export const CORS_MAX_AGE_SECONDS = 600;

/**
 * Registers CORS for the whole app. Bearer tokens, no cookies: never Access-Control-Allow-Credentials.
 * With `*` every answer carries `Access-Control-Allow-Origin: *` (the same for every caller, so no
 * Vary). With a list, the caller's Origin is echoed only when it is listed, and every answer carries
 * `Vary: Origin`; an origin not listed gets no Access-Control-Allow-Origin, so its browser refuses
 * the answer. Any OPTIONS request is answered 204 (a preflight without the CORS request headers too:
 * there is nothing else to answer it with).
 */
export async function registerCors(app: App, origins: Config['corsOrigins']): Promise<void> {
  await app.register(cors, {
    origin: origins === '*' ? '*' : [...origins],
    credentials: false,
    methods: [...CORS_METHODS],
    allowedHeaders: [...CORS_ALLOWED_HEADERS],
    exposedHeaders: [...CORS_EXPOSED_HEADERS],
    maxAge: CORS_MAX_AGE_SECONDS,
    strictPreflight: false,
    optionsSuccessStatus: 204,
    hook: 'onRequest',
  });
}

/**
 * The CORS headers of an answer that no hook saw: fastify hands errors of the router itself (a bad
 * percent-encoding, say) straight to `frameworkErrors`, before any hook runs. The same headers as
 * the plugin sets on a routed answer, so that the browser lets its script read that 400 too.
 */
export function corsHeadersWithoutHooks(
  origins: Config['corsOrigins'],
  requestOrigin: string | undefined,
): Record<string, string> {
  const headers: Record<string, string> = { 'access-control-expose-headers': CORS_EXPOSED_HEADERS.join(', ') };
  if (origins === '*') headers['access-control-allow-origin'] = '*';
  else {
    headers.vary = 'Origin';
    if (requestOrigin !== undefined && origins.includes(requestOrigin))
      headers['access-control-allow-origin'] = requestOrigin;
  }
  return headers;
}

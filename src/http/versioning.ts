// API versions of the access-event face (SPEC.md §6): the version comes from the `api-version`
// header or query parameter (1.0, 2.0, 3.0; default: the newest the route has). Routes of several
// versions share a path through a router constraint: the v1.0 routes are registered with
// `constraints: { apiVersion: '1.0' }`, the current ones without, so a request that names no
// version gets the current route. Each route then checks the version it was reached with: an
// unknown version, or one the route does not exist in, is a 400 problem that lists the versions.
// Every response of these routes says which versions exist; legacy ones also carry deprecation
// headers (RFC 9745 `Deprecation`, a `Link` to the current document).
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from './app-type.ts';
import { AppError } from '../errors.ts';

export const EVENT_API_VERSIONS = ['1.0', '2.0', '3.0'] as const;
export type EventApiVersion = (typeof EVENT_API_VERSIONS)[number];
export const CURRENT_EVENT_API_VERSION: EventApiVersion = '3.0';
export const DEPRECATED_EVENT_API_VERSIONS: readonly EventApiVersion[] = ['1.0', '2.0'];
/** When versions 1.0 and 2.0 were deprecated (RFC 9745 date: Unix seconds). */
export const LEGACY_DEPRECATED_AT = Date.UTC(2026, 0, 1) / 1000;

export const API_VERSION_CONSTRAINT = 'apiVersion';
const HEADER = 'api-version';

/** "1" and "1.0" name the same version. */
function normalize(value: string): string {
  const trimmed = value.trim();
  return /^\d+$/.test(trimmed) ? `${trimmed}.0` : trimmed;
}

/**
 * The version a request names, normalized; undefined when it names none. A request that names two
 * different versions (header and query) gets a value that matches no version.
 */
export function requestedApiVersion(req: Pick<IncomingMessage, 'headers' | 'url'>): string | undefined {
  const header = req.headers[HEADER];
  const fromHeader =
    typeof header === 'string' ? normalize(header) : Array.isArray(header) ? header.join(',') : undefined;
  let fromQuery: string | undefined;
  const url = req.url ?? '';
  const q = url.indexOf('?');
  if (q !== -1 && url.includes(HEADER, q)) {
    const values = new URLSearchParams(url.slice(q + 1)).getAll(HEADER);
    if (values.length > 0) fromQuery = values.length === 1 ? normalize(values[0]!) : values.join(',');
  }
  if (fromHeader !== undefined && fromQuery !== undefined && fromHeader !== fromQuery)
    return `${fromHeader}|${fromQuery}`;
  return fromHeader ?? fromQuery;
}

const isKnown = (value: string): value is EventApiVersion => (EVENT_API_VERSIONS as readonly string[]).includes(value);

/** Registers the router constraint once (the router is shared by every scope). */
export function ensureApiVersionConstraint(app: App): void {
  if (app.hasConstraintStrategy(API_VERSION_CONSTRAINT)) return;
  app.addConstraintStrategy({
    name: API_VERSION_CONSTRAINT,
    // A version no constrained route has falls through to the unconstrained (current) route,
    // whose version check then answers 400: the router never 404s on a version.
    mustMatchWhenDerived: false,
    storage() {
      const handlers = new Map<string, unknown>();
      return {
        get: (version: string) => (handlers.get(version) ?? null) as never,
        set: (version: string, store: unknown) => void handlers.set(version, store),
      };
    },
    deriveConstraint: (req: IncomingMessage) => requestedApiVersion(req),
    validate(value: unknown) {
      if (typeof value !== 'string' || !isKnown(value)) throw new Error(`unknown api version ${String(value)}`);
    },
  });
}

function versionHeaders(reply: FastifyReply, served: EventApiVersion): void {
  reply.header('api-supported-versions', EVENT_API_VERSIONS.join(', '));
  if (DEPRECATED_EVENT_API_VERSIONS.includes(served)) {
    reply.header('api-deprecated-versions', DEPRECATED_EVENT_API_VERSIONS.join(', '));
    reply.header('deprecation', `@${LEGACY_DEPRECATED_AT}`);
    reply.header('link', '</swagger/v3.0.json>; rel="deprecation"; type="application/json"');
  }
}

/**
 * The version check of a plugin whose routes exist in `served` (and, for the other paths listed in
 * `alsoIn`, in more versions): a request reaching them with another version is refused with 400.
 * `isDefault`: a request that names no version is served (the route's newest version).
 */
export function serveApiVersion(
  app: App,
  served: EventApiVersion,
  options: { isDefault: boolean; versionsOfRoute: (url: string) => readonly EventApiVersion[] },
): void {
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    versionHeaders(reply, served);
    const requested = requestedApiVersion(request.raw);
    if (requested === undefined ? options.isDefault : requested === served) return;
    const exists = options.versionsOfRoute(request.routeOptions.url ?? '');
    const list = exists.join(', ');
    if (requested === undefined) {
      throw new AppError(
        400,
        'API_VERSION_REQUIRED',
        `This route exists in api-version ${list}: name one in the api-version header or query parameter.`,
        [{ path: 'api-version', message: `must be one of ${list}` }],
      );
    }
    const detail = isKnown(requested)
      ? `This route does not exist in api-version ${requested}; it exists in ${list}.`
      : `The api-version is not one this API has (${EVENT_API_VERSIONS.join(', ')}); this route exists in ${list}. Name one version, in the api-version header or query parameter.`;
    throw new AppError(
      400,
      'UNSUPPORTED_API_VERSION',
      detail,
      [{ path: 'api-version', message: `must be one of ${list}` }],
      {
        'api-supported-versions': EVENT_API_VERSIONS.join(', '),
      },
    );
  });
}

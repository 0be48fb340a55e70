// How errors reach the client. Each face has one renderer: application/problem+json (RFC 9457)
// by default, the /api/3 envelope for auction import, the RFC 6749 body for the token endpoint.
// Every error — thrown by a handler, the guard, validation, the router (no route, a bad URL, a
// path parameter over the length limit) — goes through `renderError`, which picks the face's
// renderer by the request's path and stamps the request id on the answer.
import { Type, type TSchema } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App as FastifyInstance } from './app-type.ts';
import { notFound } from '../errors.ts';
import { normalizeError, type NormalizedError } from './errors.ts';
import { CORRELATION_HEADER } from './request-id.ts';

export const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  errors?: { path: string; message: string }[];
  traceId: string;
}

/** One invalid field of a 400: its path in the request (`unitNumber`, `items[0].id`) and what is wrong. */
const FieldError = Type.Object({ path: Type.String(), message: Type.String() }, { $id: 'FieldError' });

/** The problem+json body, as OpenAPI documents it on every route's error answers. */
export const Problem = Type.Object(
  {
    type: Type.String({ description: 'urn:gatehouse:problem:<code in kebab case>' }),
    title: Type.String(),
    status: Type.Integer(),
    code: Type.String({ description: 'UPPER_SNAKE code, stable for programs to branch on.' }),
    detail: Type.String({ description: 'A sentence for people; never a stack trace, SQL or a secret.' }),
    errors: Type.Optional(Type.Array(FieldError, { description: 'Every invalid field (400).' })),
    traceId: Type.String({ description: 'The request id, also in X-Correlation-ID.' }),
  },
  { $id: 'Problem' }, // application/problem+json (RFC 9457)
);

/** A refusal a route documents itself (a 404, a 409 with its code), in the Problem body: `Refused('UNIT_VACANT: …')`. */
export const Refused = (description: string) => ({ ...Problem, description });

/** Members a face adds to its problem bodies (RFC 9457 §3.2 extension members). */
export type ProblemExtensions = Record<string, unknown>;

export function problemBody(error: NormalizedError, traceId: string, extensions: ProblemExtensions = {}): ProblemBody {
  return {
    ...extensions,
    type: `urn:gatehouse:problem:${error.code.toLowerCase().replace(/_/g, '-')}`,
    title: error.title,
    status: error.status,
    code: error.code,
    detail: error.detail,
    ...(error.errors.length > 0 ? { errors: error.errors } : {}),
    traceId,
  };
}

/** Logs what must be logged about an error and returns its normalized form. */
export function handleError(error: unknown, request: FastifyRequest): NormalizedError {
  const normalized = normalizeError(error);
  if (normalized.unexpected) request.log.error({ err: normalized.unexpected }, 'request failed');
  else if (normalized.status >= 500) request.log.warn({ code: normalized.code }, normalized.detail);
  return normalized;
}

export function sendProblem(
  reply: FastifyReply,
  normalized: NormalizedError,
  extensions?: ProblemExtensions,
): FastifyReply {
  return reply
    .code(normalized.status)
    .headers(normalized.headers)
    .type(PROBLEM_TYPE)
    .send(problemBody(normalized, reply.request.id, extensions));
}

/** Renders any error in a face's own shape. */
export type ErrorRenderer = (error: unknown, request: FastifyRequest, reply: FastifyReply) => FastifyReply;

/** An error answer as data: what a face answers for a normalized error, to write where no reply exists. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  contentType: string;
  body: unknown;
}

export interface FaceErrorRenderer {
  /** Whether a request path (no query) belongs to the face. */
  owns(path: string): boolean;
  render: ErrorRenderer;
  /** The body of its error answers (a named schema), documented on each of the face's routes. */
  body: TSchema;
  /** The media type of its error answers. */
  mediaType: string;
  /**
   * The same shape as data, for a request node refused before fastify saw it (headers over 16 KiB,
   * not HTTP at all: http/client-errors.ts writes it on the socket).
   */
  answer(normalized: NormalizedError, traceId: string): ErrorAnswer;
}

const renderProblem: ErrorRenderer = (error, request, reply) => sendProblem(reply, handleError(error, request));

const problemAnswer = (normalized: NormalizedError, traceId: string): ErrorAnswer => ({
  status: normalized.status,
  headers: normalized.headers,
  contentType: PROBLEM_TYPE,
  body: problemBody(normalized, traceId),
});

declare module 'fastify' {
  interface FastifyInstance {
    /** The faces' error renderers, shared by every scope of the app (problem+json when none owns the path). */
    errorRenderers: FaceErrorRenderer[];
  }
}

/** A face claims its paths: every error on them, routed or not, is rendered its way. */
export function registerErrorRenderer(app: FastifyInstance, renderer: FaceErrorRenderer): void {
  app.errorRenderers.push(renderer);
}

const pathOf = (url: string) => {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
};
/** The path as the router matches it: trailing slashes do not matter (ignoreTrailingSlash). */
const routedPath = (url: string) => pathOf(url).replace(/(.)\/+$/, '$1');

/** The face's renderer for a path: the first that owns it, else problem+json. */
export function rendererFor(renderers: readonly FaceErrorRenderer[], url: string): Omit<FaceErrorRenderer, 'owns'> {
  const path = routedPath(url);
  return (
    renderers.find((face) => face.owns(path)) ?? {
      render: renderProblem,
      body: Problem,
      mediaType: 'application/problem+json',
      answer: problemAnswer,
    }
  );
}

export function renderError(
  renderers: readonly FaceErrorRenderer[],
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  // Hooks may not have run (a router error, a refusal by the guard): the id is set here too.
  reply.header(CORRELATION_HEADER, request.id);
  return rendererFor(renderers, request.url).render(error, request, reply);
}

export const routeNotFound = (request: FastifyRequest) =>
  notFound(`No route matches ${request.method} ${pathOf(request.url)}; the resource`);

/**
 * The app-wide error and not-found handling over the faces' renderers. Router errors (a bad URL,
 * a path parameter over the length limit) reach fastify's `frameworkErrors` option, given to the
 * constructor: app.ts passes `renderError` over the same list there.
 */
export function registerProblemHandling(app: FastifyInstance, renderers: FaceErrorRenderer[]): void {
  app.decorate('errorRenderers', renderers);
  app.setErrorHandler((error, request, reply) => renderError(app.errorRenderers, error, request, reply));
  app.setNotFoundHandler((request, reply) => renderError(app.errorRenderers, routeNotFound(request), request, reply));
}

// application/problem+json (RFC 9457): the error shape of every face but /api/3 and /auth/token.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App as FastifyInstance } from './app-type.ts';
import { normalizeError, notFound, type NormalizedError } from './errors.ts';

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

export function problemBody(error: NormalizedError, traceId: string): ProblemBody {
  return {
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

export function sendProblem(reply: FastifyReply, normalized: NormalizedError): FastifyReply {
  return reply
    .code(normalized.status)
    .headers(normalized.headers)
    .type(PROBLEM_TYPE)
    .send(problemBody(normalized, reply.request.id));
}

export function registerProblemHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => sendProblem(reply, handleError(error, request)));
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, normalizeError(notFound(`No route matches ${request.method} ${request.url.split('?')[0]}; the resource`))),
  );
}

// The one function that turns any error — the service's own, fastify's, the database's — into the
// normalized shape each face renders (problem+json, the /api/3 envelope, OAuth).
import type { FastifyError } from 'fastify';
import { databaseUnavailable } from '../db/errors.ts';
import { AppError, fromDatabaseError, type FieldError } from '../errors.ts';

/** What every renderer works from. `detail` is always safe to show a client. */
export interface NormalizedError {
  status: number;
  code: string;
  title: string;
  detail: string;
  errors: FieldError[];
  headers: Record<string, string>;
  /** The original error, for the log; set only for 5xx that were not raised on purpose. */
  unexpected?: unknown;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  431: 'Request Header Fields Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export const titleFor = (status: number) => TITLES[status] ?? (status >= 500 ? 'Server Error' : 'Client Error');

/** The router refuses longer path parameters (fastify's maxParamLength). */
export const MAX_PATH_PARAMETER_LENGTH = 200;

// Fastify's own request errors: their messages are about the request, never about internals.
const FASTIFY_CODES: Record<string, { status: number; code: string; detail?: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: {
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    detail: 'The request body is larger than this route accepts.',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    detail:
      'The Content-Type of the request body is not one this route accepts: send the body as JSON, with Content-Type: application/json.',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    status: 400,
    code: 'INVALID_CONTENT_LENGTH',
    detail: 'The Content-Length header does not match the body.',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    status: 400,
    code: 'MALFORMED_JSON',
    detail: 'The body is empty but the Content-Type says JSON.',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'MALFORMED_JSON', detail: 'The request body is not valid JSON.' },
  FST_ERR_CTP_INVALID_TYPE: {
    status: 400,
    code: 'INVALID_CONTENT_TYPE',
    detail: 'The Content-Type header is not valid.',
  },
  FST_ERR_BAD_URL: {
    status: 400,
    code: 'BAD_URL',
    detail: 'The request URL is not valid (a malformed percent-encoding).',
  },
  FST_ERR_MAX_PARAM_LENGTH: {
    status: 414,
    code: 'PATH_PARAMETER_TOO_LONG',
    detail: `A path parameter is longer than ${MAX_PATH_PARAMETER_LENGTH} characters.`,
  },
};

export function normalizeError(thrown: unknown): NormalizedError {
  const error = fromDatabaseError(thrown) ?? databaseUnavailable(thrown) ?? thrown;
  if (error instanceof AppError) {
    return {
      status: error.status,
      code: error.code,
      title: titleFor(error.status),
      detail: error.message,
      errors: error.errors,
      headers: error.headers,
    };
  }
  const fastifyError = error as Partial<FastifyError> & { validation?: unknown[]; validationContext?: string };
  if (fastifyError?.validation) {
    return {
      status: 400,
      code: 'VALIDATION_FAILED',
      title: titleFor(400),
      detail: 'The request has invalid fields.',
      errors: [{ path: fastifyError.validationContext ?? 'body', message: fastifyError.message ?? 'is invalid' }],
      headers: {},
    };
  }
  const known = fastifyError?.code ? FASTIFY_CODES[fastifyError.code] : undefined;
  if (known) {
    return {
      status: known.status,
      code: known.code,
      title: titleFor(known.status),
      detail: known.detail ?? fastifyError.message!,
      errors: [],
      headers: {},
    };
  }
  if (error instanceof SyntaxError && (error as { statusCode?: number }).statusCode === 400) {
    return {
      status: 400,
      code: 'MALFORMED_JSON',
      title: titleFor(400),
      detail: 'The request body is not valid JSON.',
      errors: [],
      headers: {},
    };
  }
  const status = fastifyError?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // A 4xx raised by fastify or one of its plugins: a statement about the request.
    const code = status === 429 ? 'RATE_LIMITED' : status === 405 ? 'METHOD_NOT_ALLOWED' : 'BAD_REQUEST';
    return {
      status,
      code,
      title: titleFor(status),
      detail: fastifyError.message ?? titleFor(status),
      errors: [],
      headers: {},
    };
  }
  return {
    status: 500,
    code: 'INTERNAL_ERROR',
    title: titleFor(500),
    detail: 'The service failed to handle the request. It is safe to retry.',
    errors: [],
    headers: {},
    unexpected: error,
  };
}

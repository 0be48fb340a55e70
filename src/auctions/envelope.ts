// The /api/3 envelope (SPEC.md §3): every answer of the face, success or failure, is
// `{meta: {ack, hasErrors, hasWarnings, errors, warnings}, data}`, and `ack` is true exactly for 2xx.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema } from '@fastify/type-provider-typebox';
import type { App } from '../http/app-type.ts';
import type { NormalizedError } from '../http/errors.ts';
import { handleError, registerErrorRenderer } from '../http/problem.ts';

export interface EnvelopeMessage {
  code: string;
  message: string;
  path?: string;
}

export interface Envelope<T> {
  meta: {
    ack: boolean;
    hasErrors: boolean;
    hasWarnings: boolean;
    errors: EnvelopeMessage[];
    warnings: EnvelopeMessage[];
  };
  data: T;
}

export function envelope<T>(
  status: number,
  data: T,
  errors: EnvelopeMessage[] = [],
  warnings: EnvelopeMessage[] = [],
): Envelope<T> {
  return {
    meta: {
      ack: status >= 200 && status < 300,
      hasErrors: errors.length > 0,
      hasWarnings: warnings.length > 0,
      errors,
      warnings,
    },
    data,
  };
}

/** A refusal in the envelope's own terms: coded errors and/or warnings, and possibly data. */
export class EnvelopeError extends Error {
  override name = 'EnvelopeError';
  constructor(
    readonly status: number,
    readonly errors: EnvelopeMessage[],
    readonly warnings: EnvelopeMessage[] = [],
    readonly data: unknown = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(errors[0]?.message ?? warnings[0]?.message ?? 'refused');
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** Sends an envelope already serialised (a stored idempotent response, or one built here). */
export function sendEnvelopeText(
  reply: FastifyReply,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): FastifyReply {
  return reply.code(status).headers(headers).type(JSON_TYPE).send(text);
}

export function sendEnvelope<T>(
  reply: FastifyReply,
  status: number,
  body: Envelope<T>,
  headers: Record<string, string> = {},
): FastifyReply {
  return sendEnvelopeText(reply, status, JSON.stringify(body), headers);
}

/** Any error, as the envelope: the shared normalisation decides status, code and safe wording. */
export function errorEnvelope(
  error: unknown,
  request: FastifyRequest,
): { status: number; body: Envelope<unknown>; headers: Record<string, string> } {
  if (error instanceof EnvelopeError) {
    return {
      status: error.status,
      body: envelope(error.status, error.data, error.errors, error.warnings),
      headers: error.headers,
    };
  }
  return envelopeOfError(handleError(error, request));
}

/** A normalized error as the envelope. */
function envelopeOfError(normalized: NormalizedError): {
  status: number;
  body: Envelope<unknown>;
  headers: Record<string, string>;
} {
  const errors: EnvelopeMessage[] =
    normalized.errors.length > 0
      ? normalized.errors.map((fault) => ({
          code: normalized.code === 'VALIDATION_FAILED' ? 'INVALID_FIELD' : normalized.code,
          message: `${fault.path} ${fault.message}.`.replace(/\.\.$/, '.'),
          path: fault.path,
        }))
      : [{ code: normalized.code, message: normalized.detail }];
  return { status: normalized.status, body: envelope(normalized.status, null, errors), headers: normalized.headers };
}

/** The face's path prefix: every error under it, routed or not, is answered in the envelope. */
export const API3_PREFIX = '/api/3';

export function registerEnvelopeHandling(scope: App): void {
  registerErrorRenderer(scope, {
    owns: (path) => path === API3_PREFIX || path.startsWith(`${API3_PREFIX}/`),
    body: Refusal,
    mediaType: 'application/json',
    render(error, request, reply) {
      const { status, body, headers } = errorEnvelope(error, request);
      return sendEnvelope(reply, status, body, headers);
    },
    answer: (normalized) => ({ ...envelopeOfError(normalized), contentType: JSON_TYPE }),
  });
}

// ---- OpenAPI schemas of the envelope ----

export const Message = Type.Object(
  {
    code: Type.String({ description: 'UPPER_SNAKE code.' }),
    message: Type.String({ description: 'A human sentence.' }),
    path: Type.Optional(Type.String({ description: 'The field at fault, e.g. auctionableUnitInfo[3].endsAt.' })),
  },
  { $id: 'EnvelopeMessage' },
);

const Meta = Type.Object(
  {
    ack: Type.Boolean({ description: 'True exactly when the HTTP status is 2xx.' }),
    hasErrors: Type.Boolean(),
    hasWarnings: Type.Boolean(),
    errors: Type.Array(Message),
    warnings: Type.Array(Message),
  },
  { $id: 'EnvelopeMeta' },
);

/** The meta of a success without warnings, for the examples. */
const ACKNOWLEDGED = { ack: true, hasErrors: false, hasWarnings: false, errors: [], warnings: [] };

/**
 * The envelope of an answer with this data. A named data schema names its envelope
 * (`Auction` → `AuctionEnvelope`), so that the document writes each envelope once and a
 * generated client has its type; the data's examples become the envelope's (a success's).
 */
export const EnvelopeOf = <T extends TSchema>(data: T) => {
  const { $id: name, examples: dataExamples } = data as { $id?: string; examples?: unknown[] };
  const examples = dataExamples?.map((example) => ({ meta: ACKNOWLEDGED, data: example }));
  return Type.Object(
    { meta: Meta, data },
    { ...(name ? { $id: `${name}Envelope` } : {}), ...(examples ? { examples } : {}) },
  );
};

/** The envelope of a refusal: meta.ack false, meta.errors says why; data is null unless the refusal says more. */
const Refusal = Type.Object(
  { meta: Meta, data: Type.Unknown({ description: 'null, unless the refusal carries data (as a 409 may).' }) },
  { $id: 'EnvelopeRefusal' },
);
export const ErrorEnvelope = (description: string) => ({ ...Refusal, description });

/** The refusals every partner route documents (the guard's, the limits', an outage's). */
export const PARTNER_ERRORS = {
  401: ErrorEnvelope('No token, or a malformed, badly signed, expired or revoked token (INVALID_TOKEN).'),
  403: ErrorEnvelope(
    "The token lacks the scope, is not an auction partner's (PARTNER_TOKEN_REQUIRED), " +
      "or clientType is not the partner's (CLIENT_TYPE_MISMATCH).",
  ),
  404: ErrorEnvelope("The guid is not one of the partner's facilities (FACILITY_NOT_FOUND)."),
  429: ErrorEnvelope('Too many requests (RATE_LIMITED); Retry-After says when to try again.'),
  500: ErrorEnvelope('The service failed (INTERNAL_ERROR); safe to retry.'),
};

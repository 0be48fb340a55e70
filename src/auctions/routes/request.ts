// What the auction routes read from a request beyond their schemas: the partner of an /api/3
// call, the Idempotency-Key (the actor of a change: http/caller.ts); and the body validator of the
// routes whose bodies validation.ts judges.
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { principalOf, type PartnerPrincipal } from '../../http/caller.ts';
import { validatorCompiler } from '../../http/validation.ts';
import { EnvelopeError } from '../envelope.ts';
import { LIMITS } from '../model.ts';

/** The auction partner calling (else 403 PARTNER_TOKEN_REQUIRED, in the envelope). */
export function partnerOf(request: FastifyRequest): PartnerPrincipal {
  const principal = principalOf(request);
  if (principal.kind !== 'partner') {
    throw new EnvelopeError(403, [
      {
        code: 'PARTNER_TOKEN_REQUIRED',
        message: "Auction import needs an auction partner's token (client_credentials of a partner application).",
      },
    ]);
  }
  return principal;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The Idempotency-Key header, when sent (else 400 INVALID_FIELD, in the envelope). */
export function idempotencyKeyOf(request: FastifyRequest): string | null {
  const value = request.headers['idempotency-key'];
  if (value === undefined) return null;
  if (typeof value !== 'string' || !IDEMPOTENCY_KEY.test(value)) {
    throw new EnvelopeError(400, [
      {
        code: 'INVALID_FIELD',
        message: `The Idempotency-Key header must be 1–${LIMITS.idempotencyKeyLength} printable ASCII characters without spaces.`,
        path: 'Idempotency-Key',
      },
    ]);
  }
  return value;
}

/**
 * The bodies of the create, cancel and support-change routes are judged by the operation
 * (validation.ts lists every fault, with a code, the cross-field rules too); the route's schema
 * documents them. Query strings and path parameters keep the shared validator.
 */
export const bodyJudgedByOperation: FastifySchemaCompiler<object> = (route) =>
  route.httpPart === 'body' ? (data: unknown) => ({ value: data }) : validatorCompiler(route);

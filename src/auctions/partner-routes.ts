// The auction-import face, /api/3 (SPEC.md §3): partners' tokens only, and every answer in the
// envelope. Routes parse, call the service and render; the rules live in validation.ts, plan.ts
// and service.ts.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { principalOf } from '../auth/guard.ts';
import type { PartnerPrincipal } from '../auth/principal.ts';
import type { Scope } from '../http/access.ts';
import { bodyJudgedByService } from './body-compiler.ts';
import { EnvelopeError, EnvelopeOf, ErrorEnvelope, envelope, registerEnvelopeHandling, sendEnvelope, sendEnvelopeText } from './envelope.ts';
import type { Auctions } from './index.ts';
import { LIMITS, type AuctionStatus } from './model.ts';
import { Auction, AuctionPage, CancelBody, CancelData, CreateBody, CreateData, ListQuery } from './schemas.ts';
import { ONE_UNIT_MESSAGE } from './validation.ts';

const WRITE = { access: { scopes: ['auctions:write'] as Scope[] } };
const READ = { access: { scopes: ['auctions:read'] as Scope[] } };
const tags = ['auction import'];

const COMMON_ERRORS = {
  401: ErrorEnvelope('No token, or a malformed, badly signed, expired or revoked token (INVALID_TOKEN).'),
  403: ErrorEnvelope('The token lacks the scope, is not an auction partner\'s (PARTNER_TOKEN_REQUIRED), or clientType is not the partner\'s (CLIENT_TYPE_MISMATCH).'),
  404: ErrorEnvelope('The guid is not one of the partner\'s facilities (FACILITY_NOT_FOUND).'),
  429: ErrorEnvelope('Too many requests (RATE_LIMITED); Retry-After says when to try again.'),
  500: ErrorEnvelope('The service failed (INTERNAL_ERROR); safe to retry.'),
};

function partnerOf(request: FastifyRequest): PartnerPrincipal {
  const principal = principalOf(request);
  if (principal.kind !== 'partner') {
    throw new EnvelopeError(403, [{ code: 'PARTNER_TOKEN_REQUIRED', message: "Auction import needs an auction partner's token (client_credentials of a partner application)." }]);
  }
  return principal;
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

function idempotencyKeyOf(request: FastifyRequest): string | null {
  const value = request.headers['idempotency-key'];
  if (value === undefined) return null;
  if (typeof value !== 'string' || !IDEMPOTENCY_KEY.test(value)) {
    throw new EnvelopeError(400, [{ code: 'INVALID_FIELD', message: `The Idempotency-Key header must be 1–${LIMITS.idempotencyKeyLength} printable ASCII characters without spaces.`, path: 'Idempotency-Key' }]);
  }
  return value;
}

export const partnerRoutes: FastifyPluginAsyncTypebox<{ face: Auctions; recreateWaitMinutes: number }> = async (app, { face, recreateWaitMinutes }) => {
  registerEnvelopeHandling(app);
  const { service } = face;

  app.post(
    '/auctioninfo',
    {
      config: WRITE,
      bodyLimit: LIMITS.createBodyBytes,
      validatorCompiler: bodyJudgedByService,
      schema: {
        tags,
        summary: "Send a facility's full list of auctionable units.",
        description: [
          `The list is the facility's **full** list (0–${LIMITS.recordsPerCall} records, one per unit): a listed unit without an open auction gets one (\`created\`: Active, or \`pending\` with a reason); a unit with an open auction keeps it (\`unchanged\`, with the warning ACTIVE_AUCTION_IMMUTABLE when the record differs); a unit whose auction was cancelled less than ${recreateWaitMinutes} minutes ago (AUCTION_RECREATE_WAIT_MINUTES) is \`deferred\` with \`retryAfter\`; an open auction whose unit is absent is cancelled (\`removed\`, REMOVED_FROM_LIST).`,
          'Validation is all or nothing: any invalid record refuses the call with 400 and every fault listed by path (at most 1,000); nothing is applied. Calls and cancels of one facility are applied one at a time, in arrival order.',
          '`Charity` for a facility not enrolled, and records lacking description, startsAt, endsAt or an image URL, are held as `Pending` and support is notified. Images are fetched after the answer; read the auction to follow them.',
          `Body limit: ${LIMITS.createBodyBytes / 1024 / 1024} MiB (5,000 records of about 6.7 KB each); larger → 413.`,
          '`?dryRun=true` answers with the outcomes (auctionId null for auctions it would create) and applies nothing. `Idempotency-Key` (1–255 printable characters, kept 24 hours per partner): the same key with the same body answers the first response again (header `Idempotent-Replayed: true`); with a different body, 422 IDEMPOTENCY_KEY_REUSED. Dry runs ignore the key.',
        ].join('\n\n'),
        querystring: Type.Object({ dryRun: Type.Boolean({ default: false }) }),
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ maxLength: LIMITS.idempotencyKeyLength })) }),
        body: CreateBody,
        response: {
          200: EnvelopeOf(CreateData, 'Applied (or, with dryRun, planned). `meta.warnings` may hold ACTIVE_AUCTION_IMMUTABLE.'),
          400: ErrorEnvelope('Invalid body: every fault with its path and code (e.g. REQUIRED, TOO_LONG, DUPLICATE_UNIT, ENDS_BEFORE_START, UNKNOWN_CATEGORY, SCHEME_NOT_ALLOWED, TOO_MANY); or malformed JSON.'),
          ...COMMON_ERRORS,
          409: ErrorEnvelope('IDEMPOTENCY_KEY_IN_USE: the key is being used by a request in progress.'),
          413: ErrorEnvelope('The body is larger than the limit (PAYLOAD_TOO_LARGE).'),
          422: ErrorEnvelope('IDEMPOTENCY_KEY_REUSED: the key was used with a different body.'),
        },
      },
    },
    async (request, reply) => {
      const partner = partnerOf(request);
      const result = await service.importFullList(partner, { body: request.body, dryRun: request.query.dryRun, idempotencyKey: idempotencyKeyOf(request) });
      if (result.applied) for (const [outcome, count] of Object.entries(result.applied)) face.metrics.imports.inc({ outcome }, count);
      return sendEnvelopeText(reply, result.status, result.body, result.replayed ? { 'idempotent-replayed': 'true' } : {});
    },
  );

  app.put(
    '/cancelauctions',
    {
      config: WRITE,
      validatorCompiler: bodyJudgedByService,
      schema: {
        tags,
        summary: 'Cancel the auction of one unit.',
        description: [
          'Acknowledged (200) or refused as a whole: there is no partial success. The open (Pending or Active) auction of the unit becomes Cancelled at once, and the re-create wait starts then (`recreateAfter`).',
          `More than one record → 400 ONE_UNIT_PER_REQUEST ("${ONE_UNIT_MESSAGE}"); none → 400 NO_UNIT; no auction for the unit at that facility → 404 UNIT_NOT_FOUND; already cancelled → 409 with the warning ALREADY_CANCELLED; already ClosedSold or ClosedUnsold → 409 with the warning ALREADY_CLOSED (both with hasErrors false and the auction in data).`,
        ].join('\n\n'),
        body: CancelBody,
        response: {
          200: EnvelopeOf(CancelData, 'Cancelled now.'),
          400: ErrorEnvelope('ONE_UNIT_PER_REQUEST, NO_UNIT, or invalid fields with their paths.'),
          ...COMMON_ERRORS,
          404: ErrorEnvelope('FACILITY_NOT_FOUND, or UNIT_NOT_FOUND: the unit has no auction at that facility.'),
          409: EnvelopeOf(CancelData, 'A warning, not an error: ALREADY_CANCELLED or ALREADY_CLOSED (ack false, hasErrors false).'),
        },
      },
    },
    async (request, reply) => {
      const partner = partnerOf(request);
      return sendEnvelope(reply, 200, envelope(200, await service.cancel(partner, request.body)));
    },
  );

  app.get(
    '/auctions',
    {
      config: READ,
      schema: {
        tags,
        summary: "List the partner's auctions.",
        description: 'Newest first, filtered by facility (guid), status and unitId; paged by `limit` (1–500, default 100) and the opaque `cursor` of the previous page (`nextCursor`). Items carry no images or history: read one auction for those.',
        querystring: ListQuery,
        response: { 200: EnvelopeOf(AuctionPage), 400: ErrorEnvelope('An invalid query parameter or cursor.'), ...COMMON_ERRORS },
      },
    },
    async (request, reply) => {
      const partner = partnerOf(request);
      const { guid, status, unitId, limit, cursor } = request.query;
      const page = await service.listForPartner(partner, { guid, status: status as AuctionStatus | undefined, unitId, limit, cursor });
      return sendEnvelope(reply, 200, envelope(200, page));
    },
  );

  app.get(
    '/auctions/:auctionId',
    {
      config: READ,
      schema: {
        tags,
        summary: 'Read one auction: record, status, images and history.',
        description: 'Each image shows its retrieval: pending, stored (with its /media URL, type, size, dimensions and SHA-256) or failed (with the error). The history lists every change with time, actor and reason, oldest first.',
        params: Type.Object({ auctionId: Type.String({ maxLength: 100 }) }),
        response: { 200: EnvelopeOf(Auction), ...COMMON_ERRORS, 404: ErrorEnvelope('No such auction is visible to this partner (AUCTION_NOT_FOUND).') },
      },
    },
    async (request, reply) => {
      const partner = partnerOf(request);
      return sendEnvelope(reply, 200, envelope(200, await service.getForPartner(partner, request.params.auctionId)));
    },
  );
};

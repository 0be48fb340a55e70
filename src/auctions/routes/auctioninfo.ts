// POST /api/3/auctioninfo: a partner sends a facility's full list (import.ts applies it).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { scoped } from '../../http/access.ts';
import { Answer } from '../../http/schemas.ts';
import type { AuctionSettings, Auctions } from '../index.ts';
import { EnvelopeOf, ErrorEnvelope, PARTNER_ERRORS, sendEnvelopeText } from '../envelope.ts';
import { LIMITS } from '../model.ts';
import { CreateBody, CreateData, importTags as tags } from '../schemas.ts';
import { bodyJudgedByOperation, idempotencyKeyOf, partnerOf } from './request.ts';

export const auctionInfoRoutes: FastifyPluginAsyncTypebox<{ face: Auctions; settings: AuctionSettings }> = async (
  app,
  { face, settings },
) => {
  const waitMinutes = settings.recreateWaitMinutes;

  app.post(
    '/auctioninfo',
    {
      config: scoped('auctions:write'),
      bodyLimit: LIMITS.createBodyBytes,
      validatorCompiler: bodyJudgedByOperation,
      schema: {
        operationId: 'importAuctions',
        tags,
        summary: "Send a facility's full list of auctionable units.",
        description: [
          `The list is the facility's **full** list (0–${LIMITS.recordsPerCall} records, one per unit): ` +
            `a listed unit without an open auction gets one (\`created\`: Active, ` +
            `or \`pending\` with a reason); a unit with an open auction keeps it (\`unchanged\`, ` +
            `with the warning ACTIVE_AUCTION_IMMUTABLE when the record differs); ` +
            `a unit whose auction was cancelled less than ${waitMinutes} minutes ago (AUCTION_RECREATE_WAIT_MINUTES) ` +
            `is \`deferred\` with \`retryAfter\`; ` +
            `an open auction whose unit is absent is cancelled (\`removed\`, REMOVED_FROM_LIST).`,
          'Validation is all or nothing: ' +
            'any invalid record refuses the call with 400 and every fault listed by path (at most 1,000); ' +
            'nothing is applied. Calls and cancels of one facility are applied one at a time, ' +
            'in arrival order.',
          '`Charity` for a facility not enrolled, and records lacking description, startsAt, ' +
            'endsAt or an image URL, are held as `Pending` and support is notified. ' +
            'Images are fetched after the answer; read the auction to follow them.',
          `Body limit: ${LIMITS.createBodyBytes / 1024 / 1024} MiB (5,000 records of about 6.7 KB each); larger → 413.`,
          '`?dryRun=true` answers with the outcomes (auctionId null for auctions it would create) ' +
            'and applies nothing. `Idempotency-Key` (1–255 printable characters, kept 24 hours per partner): ' +
            'the same key with the same body answers the first response again ' +
            '(header `Idempotent-Replayed: true`); with a different body, 422 IDEMPOTENCY_KEY_REUSED. ' +
            'Dry runs ignore the key.',
        ].join('\n\n'),
        querystring: Type.Object({ dryRun: Type.Boolean({ default: false }) }),
        headers: Type.Object({
          'idempotency-key': Type.Optional(Type.String({ maxLength: LIMITS.idempotencyKeyLength })),
        }),
        body: CreateBody,
        response: {
          200: Answer(
            'Applied (or, with dryRun, planned). `meta.warnings` may hold ACTIVE_AUCTION_IMMUTABLE.',
            EnvelopeOf(CreateData),
          ),
          400: ErrorEnvelope(
            'Invalid body: every fault with its path and code (e.g. REQUIRED, TOO_LONG, DUPLICATE_UNIT, ' +
              'ENDS_BEFORE_START, UNKNOWN_CATEGORY, SCHEME_NOT_ALLOWED, TOO_MANY); or malformed JSON.',
          ),
          ...PARTNER_ERRORS,
          409: ErrorEnvelope('IDEMPOTENCY_KEY_IN_USE: the key is being used by a request in progress.'),
          413: ErrorEnvelope('The body is larger than the limit (PAYLOAD_TOO_LARGE).'),
          422: ErrorEnvelope('IDEMPOTENCY_KEY_REUSED: the key was used with a different body.'),
        },
      },
    },
    async (request, reply) => {
      const partner = partnerOf(request);
      const input = { body: request.body, dryRun: request.query.dryRun, idempotencyKey: idempotencyKeyOf(request) };
      const result = await face.importFullList(partner, input);
      return sendEnvelopeText(
        reply,
        result.status,
        result.body,
        result.replayed ? { 'idempotent-replayed': 'true' } : {},
      );
    },
  );
};

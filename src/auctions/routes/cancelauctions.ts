// PUT /api/3/cancelauctions: a partner cancels the auction of one unit (cancel.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { scoped } from '../../http/access.ts';
import { Answer } from '../../http/schemas.ts';
import type { Auctions } from '../index.ts';
import { EnvelopeOf, ErrorEnvelope, PARTNER_ERRORS, envelope, sendEnvelope } from '../envelope.ts';
import { CancelBody, CancelData, importTags as tags } from '../schemas.ts';
import { ONE_UNIT_MESSAGE } from '../validation.ts';
import { bodyJudgedByOperation, partnerOf } from './request.ts';

export const cancelAuctionsRoutes: FastifyPluginAsyncTypebox<{ face: Auctions }> = async (app, { face }) => {
  app.put(
    '/cancelauctions',
    {
      config: scoped('auctions:write'),
      validatorCompiler: bodyJudgedByOperation,
      schema: {
        operationId: 'cancelAuction',
        tags,
        summary: 'Cancel the auction of one unit.',
        description: [
          'Acknowledged (200) or refused as a whole: there is no partial success. ' +
            'The open (Pending or Active) auction of the unit becomes Cancelled at once, ' +
            'and the re-create wait starts then (`recreateAfter`).',
          `More than one record → 400 ONE_UNIT_PER_REQUEST ("${ONE_UNIT_MESSAGE}"); none → 400 NO_UNIT; ` +
            `no auction for the unit at that facility → 404 UNIT_NOT_FOUND; ` +
            `already cancelled → 409 with the warning ALREADY_CANCELLED; ` +
            `already ClosedSold or ClosedUnsold → 409 with the warning ALREADY_CLOSED ` +
            `(both with hasErrors false and the auction in data).`,
        ].join('\n\n'),
        body: CancelBody,
        response: {
          200: Answer('Cancelled now.', EnvelopeOf(CancelData)),
          400: ErrorEnvelope('ONE_UNIT_PER_REQUEST, NO_UNIT, or invalid fields with their paths.'),
          ...PARTNER_ERRORS,
          404: ErrorEnvelope('FACILITY_NOT_FOUND, or UNIT_NOT_FOUND: the unit has no auction at that facility.'),
          // In the content form, so that the success's example (ack true) is not shown as this answer's.
          409: {
            description:
              'A warning, not an error: ALREADY_CANCELLED or ALREADY_CLOSED (ack false, hasErrors false, the auction in data).',
            content: { 'application/json': { schema: EnvelopeOf(CancelData) } },
          },
        },
      },
    },
    async (request, reply) => {
      const cancelled = await face.cancelAuction(partnerOf(request), request.body);
      return sendEnvelope(reply, 200, envelope(200, cancelled));
    },
  );
};

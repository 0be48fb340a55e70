// POST /gateway/v1/digest and /gateway/v1/digest/items — the controller says what it holds (SPEC §4.1
// "Drift"; src/drift/digest.ts). The facility is the token's (a gateway credential names one facility).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  DIGEST_TAGS,
  DigestAnswerSchema,
  DigestBody,
  DigestItemsAnswerSchema,
  DigestItemsBody,
  type Drift,
  MAX_ITEMS_BODY_BYTES,
} from '../../drift/index.ts';
import { forbidden, notFound } from '../../errors.ts';
import { scoped } from '../../http/access.ts';
import { principalOf } from '../../http/caller.ts';
import type { FastifyRequest } from 'fastify';
import { Answer } from '../../http/schemas.ts';
import { Refused } from '../../http/problem.ts';

/** The token's facility; a facilityId in the body must name it (else 404). */
function controllerFacility(request: FastifyRequest, named: number | undefined): number {
  const principal = principalOf(request);
  if (principal.kind !== 'gateway') throw forbidden('Only a gateway controller credential can report its digest.');
  if (named !== undefined && named !== principal.facilityId) throw notFound('The facility');
  return principal.facilityId;
}

export const gatewayDigestRoutes: FastifyPluginAsyncTypebox<{ drift: Drift }> = async (app, { drift }) => {
  app.post(
    '/gateway/v1/digest',
    {
      config: scoped('gateway'),
      schema: {
        operationId: 'reportGatewayDigest',
        tags: DIGEST_TAGS,
        summary: 'The controller’s digest of the units and visitors it holds, compared with the PMS’s.',
        description:
          'Send it when connecting, every nextDigestSeconds, and after applying a batch of commands. Each kind ' +
          '(units, visitors) is 64 buckets by id mod 64; a bucket is the XOR of its items’ hashes, an item’s hash ' +
          'the first 8 bytes of SHA-256 of its fingerprint, the JSON array ["unit", id, unitNumber, status] or ' +
          '["visitor", id, unitId, isEnabled, timeGroupId, accessProfileId, accessCode] (docs/faces/drift.md). ' +
          'in-sync: nothing to do. differs: send the items of the buckets named to POST /gateway/v1/digest/items.',
        body: DigestBody,
        response: {
          200: Answer('in-sync, or the buckets that differ.', DigestAnswerSchema),
          404: Refused('The facilityId given is not the token’s facility.'),
        },
      },
    },
    async (request) => {
      const { facilityId, ...report } = request.body;
      return drift.compareDigest(controllerFacility(request, facilityId), report);
    },
  );

  app.post(
    '/gateway/v1/digest/items',
    {
      config: scoped('gateway'),
      bodyLimit: MAX_ITEMS_BODY_BYTES,
      schema: {
        operationId: 'reportGatewayDigestItems',
        tags: DIGEST_TAGS,
        summary: 'The items of the buckets that differ; what differs is recorded as drift and healed by commands.',
        description:
          'Every unit and visitor the controller holds in the buckets named (ids, hashes, and fields but never a ' +
          'gate code). Items that a command still in flight (sequence > appliedSequence, not yet acknowledged, ' +
          'failed or expired) will change are left ' +
          'out. What differs is recorded as the facility’s drift (GET /facilities/{facilityId}/drift, webhook ' +
          'facility.drift) and healed by exactly the commands that put each item back (payload action "correct", ' +
          'driftId), delivered by GET /gateway/v1/commands as any other; more than 256 items of one kind are ' +
          'healed by one refresh of that kind.',
        body: DigestItemsBody,
        response: {
          200: Answer('in-sync, or the drift found and the corrections queued.', DigestItemsAnswerSchema),
          404: Refused('The facilityId given is not the token’s facility.'),
        },
      },
    },
    async (request) => {
      const { facilityId, ...report } = request.body;
      return drift.compareItems(controllerFacility(request, facilityId), report);
    },
  );
};

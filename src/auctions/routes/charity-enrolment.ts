// /admin/facilities/{facilityId}/charity-enrolment: the operator enrols a facility in the charity
// programme (POST) or withdraws it (DELETE) — charity-enrolment.ts.
import { EntityId } from '../../http/schemas.ts';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OPERATOR } from '../../http/access.ts';
import { Nullable } from '../../http/schemas.ts';
import type { Services } from '../../services.ts';
import { adminTags as tags } from '../schemas.ts';
import { actorOf } from './request.ts';

const Enrolment = Type.Object({
  facilityId: EntityId('The facility id.'),
  guid: Nullable(Type.String()),
  charityEnrolled: Type.Boolean(),
  activated: Type.Array(Type.String(), { description: 'Pending charity auctions that became Active.' }),
  stillPending: Type.Array(Type.String(), {
    description: 'Pending charity auctions still held for another reason (INCOMPLETE).',
  }),
});

const FacilityParams = Type.Object({ facilityId: EntityId('The facility id.') });

/** The two methods: what each does to the enrolment, and how the document says it. */
const METHODS = [
  {
    method: 'POST',
    enrolled: true,
    summary: 'Enrol a facility in the charity programme.',
    description:
      'Its Pending charity auctions become Active (those that are also incomplete stay Pending, ' +
      'for that reason only). Idempotent.',
  },
  {
    method: 'DELETE',
    enrolled: false,
    summary: 'Withdraw a facility from the charity programme.',
    description: 'Later charity auctions of the facility are held as Pending; its Active ones are not touched.',
  },
] as const;

export const charityEnrolmentRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const face = services.auctions;

  for (const { method, enrolled, summary, description } of METHODS) {
    app.route({
      method,
      url: '/admin/facilities/:facilityId/charity-enrolment',
      config: OPERATOR,
      schema: { tags, summary, description, params: FacilityParams, response: { 200: Enrolment } },
      handler: async (request) => face.setCharityEnrolment(actorOf(request), request.params.facilityId, enrolled),
    });
  }
};

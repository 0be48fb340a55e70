// /admin/facilities/{facilityId}/charity-enrolment: the operator enrols a facility in the charity
// programme (POST) or withdraws it (DELETE) — charity-enrolment.ts.
import { EntityId, Answer } from '../../http/schemas.ts';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OPERATOR } from '../../http/access.ts';
import type { Auctions } from '../index.ts';
import { CharityEnrolment, adminTags as tags } from '../schemas.ts';
import { actorOf } from '../../http/caller.ts';
import { Refused } from '../../http/problem.ts';

const FacilityParams = Type.Object({ facilityId: EntityId('The facility id.') });

/** The two methods: what each does to the enrolment, and how the document says it. */
const METHODS = [
  {
    method: 'POST',
    operationId: 'enrolFacilityInCharity',
    enrolled: true,
    answer: 'The facility, enrolled, and the auctions that became Active.',
    summary: 'Enrol a facility in the charity programme.',
    description:
      'Its Pending charity auctions become Active (those that are also incomplete stay Pending, ' +
      'for that reason only). Idempotent.',
  },
  {
    method: 'DELETE',
    operationId: 'withdrawFacilityFromCharity',
    enrolled: false,
    answer: 'The facility, withdrawn.',
    summary: 'Withdraw a facility from the charity programme.',
    description: 'Later charity auctions of the facility are held as Pending; its Active ones are not touched.',
  },
] as const;

export const charityEnrolmentRoutes: FastifyPluginAsyncTypebox<{ face: Auctions }> = async (app, { face }) => {
  for (const { method, operationId, enrolled, answer, summary, description } of METHODS) {
    app.route({
      method,
      url: '/admin/facilities/:facilityId/charity-enrolment',
      config: OPERATOR,
      schema: {
        operationId,
        tags,
        summary,
        description,
        params: FacilityParams,
        response: { 200: Answer(answer, CharityEnrolment), 404: Refused('No facility has that id (NOT_FOUND).') },
      },
      handler: async (request) => face.setCharityEnrolment(actorOf(request), request.params.facilityId, enrolled),
    });
  }
};

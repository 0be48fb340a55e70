// /admin/facilities (the operator): create, list, and change a facility's settings (its gate-code rules).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OPERATOR } from '../../http/access.ts';
import { Answer, EntityId, Nullable } from '../../http/schemas.ts';
import type { Tenancy } from '../index.ts';
import { AccessCodeRulesChange, ADDRESS_LINE_ALIAS, Facility, NullableText, tags } from '../schemas.ts';
import { Refused } from '../../http/problem.ts';

const FacilityBody = Type.Object({
  accountId: EntityId('The owning account.'),
  name: Type.String(),
  timeZone: Type.String({ description: 'IANA time zone, e.g. America/Denver.' }),
  propertyNumber: Type.Optional(
    Type.String({ description: '1–50 characters, unique within the service (409 PROPERTY_NUMBER_TAKEN).' }),
  ),
  // Lengths are checked with the other rules of a facility, so that one 400 names every bad field.
  addressLine1: Type.Optional(NullableText('First street line of the postal address, at most 200 characters.')),
  addressLine2: Type.Optional(
    NullableText('Second street line of the postal address (suite, building, …), at most 200 characters.'),
  ),
  addressLine: Type.Optional(NullableText(ADDRESS_LINE_ALIAS, { deprecated: true })),
  city: Type.Optional(Nullable(Type.String({ description: 'At most 100 characters.' }))),
  state: Type.Optional(Nullable(Type.String({ description: 'At most 100 characters.' }))),
  postalCode: Type.Optional(Nullable(Type.String({ description: 'At most 20 characters.' }))),
  country: Type.Optional(Nullable(Type.String({ description: 'At most 100 characters.' }))),
  guid: Type.Optional(
    Type.String({ description: 'Auction facility identifier, 1–20 characters, unique across the service.' }),
  ),
  charityEnrolled: Type.Optional(Type.Boolean()),
  accessCodeRules: Type.Optional(AccessCodeRulesChange('A sub-field left out takes the default.')),
});

const FacilityChangeBody = Type.Object({
  accessCodeRules: AccessCodeRulesChange('A sub-field left out keeps its value.', { minProperties: 1 }),
});

export const facilityRoutes: FastifyPluginAsyncTypebox<{ face: Tenancy }> = async (app, { face }) => {
  app.post(
    '/admin/facilities',
    {
      config: OPERATOR,
      schema: {
        operationId: 'createFacility',
        tags,
        summary: 'Create a facility of an account.',
        body: FacilityBody,
        response: {
          201: Answer('The facility, created.', Facility),
          404: Refused('No account has that id (NOT_FOUND).'),
          409: Refused(
            'The guid (GUID_TAKEN) or the property number (PROPERTY_NUMBER_TAKEN) is already assigned to another facility.',
          ),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await face.createFacility(request.body)),
  );

  app.patch(
    '/admin/facilities/:facilityId',
    {
      config: OPERATOR,
      schema: {
        operationId: 'updateFacility',
        tags,
        summary: "Change a facility's settings: its gate-code rules.",
        description:
          'The rules apply to the codes PMS send from now on; the codes visitors already hold are not re-checked. ' +
          'A minimum above the maximum (after the change) is a 400 naming the bound sent.',
        params: Type.Object({ facilityId: EntityId('The facility id.') }),
        body: FacilityChangeBody,
        response: {
          200: Answer('The facility, changed.', Facility),
          404: Refused('No facility has that id (NOT_FOUND).'),
        },
      },
    },
    async (request) => face.updateFacility(request.params.facilityId, request.body),
  );

  app.get(
    '/admin/facilities',
    {
      config: OPERATOR,
      schema: {
        operationId: 'adminListFacilities',
        tags,
        summary: 'List facilities.',
        querystring: Type.Object({ accountId: Type.Optional(EntityId('Only this account’s facilities.')) }),
        response: { 200: Answer('The facilities, of every account or of the one named.', Type.Array(Facility)) },
      },
    },
    async (request) => face.listFacilities(request.query.accountId),
  );
};

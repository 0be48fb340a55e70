// /admin/facilities (the operator).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OPERATOR } from '../../http/access.ts';
import type { Services } from '../../services.ts';
import { createFacility, listFacilities } from '../facilities.ts';
import { Facility, tags } from '../schemas.ts';

const FacilityBody = Type.Object({
  accountId: Type.String(),
  name: Type.String(),
  timeZone: Type.String({ description: 'IANA time zone, e.g. America/Denver.' }),
  propertyNumber: Type.Optional(Type.String()),
  guid: Type.Optional(
    Type.String({ description: 'Auction facility identifier, 1–20 characters, unique across the service.' }),
  ),
  charityEnrolled: Type.Optional(Type.Boolean()),
});

export const facilityRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { db } = services.database;

  app.post(
    '/admin/facilities',
    {
      config: OPERATOR,
      schema: { tags, summary: 'Create a facility of an account.', body: FacilityBody, response: { 201: Facility } },
    },
    async (request, reply) => reply.code(201).send(await createFacility(db, request.body)),
  );

  app.get(
    '/admin/facilities',
    {
      config: OPERATOR,
      schema: {
        tags,
        summary: 'List facilities.',
        querystring: Type.Object({ accountId: Type.Optional(Type.String()) }),
        response: { 200: Type.Array(Facility) },
      },
    },
    async (request) => listFacilities(db, request.query.accountId),
  );
};

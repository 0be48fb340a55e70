// /admin/gateways (the operator): the credentials of each facility's gateway controller.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OPERATOR } from '../../http/access.ts';
import { Answer, EntityId } from '../../http/schemas.ts';
import type { Tenancy } from '../index.ts';
import { ClientSecret, Gateway, REVOKE_NOTE, REVOKED_NOT_FOUND, Revoked, tags } from '../schemas.ts';
import { Refused } from '../../http/problem.ts';

export const gatewayCredentialRoutes: FastifyPluginAsyncTypebox<{ face: Tenancy }> = async (app, { face }) => {
  app.post(
    '/admin/gateways',
    {
      config: OPERATOR,
      schema: {
        operationId: 'createGateway',
        tags,
        summary: "Create a facility gateway controller's credentials.",
        body: Type.Object({ facilityId: EntityId('The facility of the controller.') }),
        response: {
          201: Answer('The controller’s client credentials; the secret is shown only here.', ClientSecret),
          404: Refused('No facility has that id (NOT_FOUND).'),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await face.createGatewayCredential(request.body)),
  );

  app.get(
    '/admin/gateways',
    {
      config: OPERATOR,
      schema: {
        operationId: 'listGateways',
        tags,
        summary: 'List gateway credentials.',
        querystring: Type.Object({ facilityId: Type.Optional(EntityId('Only this facility’s credentials.')) }),
        response: {
          200: Answer(
            'The credentials, of every facility or of the one named; revoked ones included.',
            Type.Array(Gateway),
          ),
        },
      },
    },
    async (request) => face.listGatewayCredentials(request.query.facilityId),
  );

  app.post(
    '/admin/gateways/:clientId/revoke',
    {
      config: OPERATOR,
      schema: {
        operationId: 'revokeGateway',
        tags,
        summary: 'Revoke gateway credentials.',
        description: REVOKE_NOTE,
        params: Type.Object({ clientId: Type.String() }),
        response: { 200: Answer('The credentials, revoked.', Revoked), 404: Refused(REVOKED_NOT_FOUND) },
      },
    },
    async (request) => face.revokeGatewayCredential(request.params.clientId),
  );
};

// /admin/applications (the operator): OAuth clients.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OPERATOR } from '../../http/access.ts';
import { Answer } from '../../http/schemas.ts';
import type { Tenancy } from '../index.ts';
import { principalOf } from '../../http/caller.ts';
import { Application, ClientSecret, REVOKE_NOTE, REVOKED_NOT_FOUND, Revoked, tags } from '../schemas.ts';
import { Refused } from '../../http/problem.ts';

const ApplicationBody = Type.Object({
  name: Type.String(),
  clientType: Type.Optional(Type.String()),
  facilityGuids: Type.Optional(Type.Array(Type.String(), { maxItems: 10000 })),
  operator: Type.Optional(Type.Boolean()),
});

export const applicationRoutes: FastifyPluginAsyncTypebox<{ face: Tenancy }> = async (app, { face }) => {
  app.post(
    '/admin/applications',
    {
      config: OPERATOR,
      schema: {
        operationId: 'createApplication',
        tags,
        summary: 'Create an application (OAuth client).',
        description:
          'A PMS application (neither clientType nor operator), an auction partner (clientType and the facility guids it may auction), ' +
          'or an operator (admin scope).',
        body: ApplicationBody,
        response: { 201: Answer('The application’s client credentials; the secret is shown only here.', ClientSecret) },
      },
    },
    async (request, reply) => reply.code(201).send(await face.createApplication(request.body)),
  );

  app.get(
    '/admin/applications',
    {
      config: OPERATOR,
      schema: {
        operationId: 'listApplications',
        tags,
        summary: 'List applications.',
        response: {
          200: Answer('Every application, revoked ones included (never their secrets).', Type.Array(Application)),
        },
      },
    },
    async () => face.listApplications(),
  );

  app.get(
    '/admin/whoami',
    {
      config: OPERATOR,
      schema: {
        operationId: 'adminWhoAmI',
        tags,
        summary: 'The operator application the token speaks for.',
        description:
          'The support console says who is signed in by the application’s name; the token answer and ' +
          '`GET /auth/whoami` carry only its client id.',
        response: {
          200: Answer('The operator application of the token (never its secret).', Application),
          404: Refused('The application no longer exists (NOT_FOUND).'),
        },
      },
    },
    async (request) => face.getApplication(principalOf(request).clientId),
  );

  app.post(
    '/admin/applications/:clientId/revoke',
    {
      config: OPERATOR,
      schema: {
        operationId: 'revokeApplication',
        tags,
        summary: 'Revoke an application.',
        description: REVOKE_NOTE,
        params: Type.Object({ clientId: Type.String() }),
        response: { 200: Answer('The application, revoked.', Revoked), 404: Refused(REVOKED_NOT_FOUND) },
      },
    },
    async (request) => face.revokeApplication(request.params.clientId),
  );
};

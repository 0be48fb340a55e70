// GET /auth/whoami: who the bearer token speaks for.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { scoped } from '../../http/access.ts';
import { Answer, EntityId, StringEnum } from '../../http/schemas.ts';
import type { Auth } from '../index.ts';
import { ALL_SCOPES, principalOf } from '../../http/caller.ts';

const Principal = Type.Object(
  {
    kind: StringEnum(['account', 'partner', 'gateway', 'operator'], {
      description:
        'account: a PMS application acting for an account; partner: an auction partner; gateway: a facility’s gateway controller; operator: an operator application.',
    }),
    clientId: Type.String(),
    scopes: Type.Array(Type.String()),
    accountId: Type.Optional(EntityId('The account the token acts for.')),
    facilityId: Type.Optional(EntityId('The facility of a gateway controller’s token.')),
    clientType: Type.Optional(Type.String()),
    facilityGuids: Type.Optional(Type.Array(Type.String())),
    sandbox: Type.Optional(
      Type.Boolean({
        description:
          'true when the token is a sandbox’s (its account key or a gateway of its facilities); absent otherwise.',
      }),
    ),
  },
  { $id: 'Principal' },
);

export const whoamiRoutes: FastifyPluginAsyncTypebox<{ face: Auth }> = async (app) => {
  app.get(
    '/auth/whoami',
    {
      config: scoped(...ALL_SCOPES),
      schema: {
        operationId: 'whoAmI',
        tags: ['authorization'],
        summary: 'Who the bearer token speaks for (any valid token).',
        description:
          'The principal the guard derived from the token: its kind, client, scopes and, as they apply, account, facility, client type, facility guids and the sandbox mark.',
        response: {
          200: Answer('The principal of the token.', Principal),
        },
      },
    },
    async (request) => {
      const { credentialId: _credential, tokenId: _token, expiresAt: _expires, ...visible } = principalOf(request);
      return visible;
    },
  );
};

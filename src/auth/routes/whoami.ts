// GET /auth/whoami: who the bearer token speaks for.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { scoped } from '../../http/access.ts';
import { EntityId } from '../../http/schemas.ts';
import type { Services } from '../../services.ts';
import { principalOf } from '../guard.ts';
import { ALL_SCOPES } from '../principal.ts';

export const whoamiRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app) => {
  app.get(
    '/auth/whoami',
    {
      config: scoped(...ALL_SCOPES),
      schema: {
        tags: ['authorization'],
        summary: 'Who the bearer token speaks for (any valid token).',
        description:
          'The principal the guard derived from the token: its kind, client, scopes and, as they apply, account, facility, client type and facility guids.',
        response: {
          200: Type.Object({
            kind: Type.String(),
            clientId: Type.String(),
            scopes: Type.Array(Type.String()),
            accountId: Type.Optional(EntityId('The account the token acts for.')),
            facilityId: Type.Optional(EntityId('The facility of a gateway controller’s token.')),
            clientType: Type.Optional(Type.String()),
            facilityGuids: Type.Optional(Type.Array(Type.String())),
          }),
        },
      },
    },
    async (request) => {
      const { credentialId: _credential, tokenId: _token, ...visible } = principalOf(request);
      return visible;
    },
  );
};

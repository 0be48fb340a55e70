// GET /.well-known/jwks.json: the public keys that verify access tokens.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PUBLIC } from '../../http/access.ts';
import type { Services } from '../../services.ts';

const JwksBody = Type.Object({ keys: Type.Array(Type.Object({}, { additionalProperties: true })) });

export const jwksRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/.well-known/jwks.json',
    {
      config: PUBLIC,
      schema: {
        tags: ['authorization'],
        summary: 'The public keys that verify access tokens (JWKS).',
        response: { 200: JwksBody },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return services.auth.tokens.publicJwks;
    },
  );
};

// GET /.well-known/jwks.json: the public keys that verify access tokens.
import { type Static, Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PUBLIC } from '../../http/access.ts';
import { Answer } from '../../http/schemas.ts';
import type { Auth } from '../index.ts';

const JsonWebKey = Type.Object(
  {
    kty: Type.String({ description: 'EC.' }),
    crv: Type.String({ description: 'P-256.' }),
    x: Type.String(),
    y: Type.String(),
    kid: Type.String({ description: 'The key id, named in the header of the tokens it signed.' }),
    alg: Type.String({ description: 'ES256.' }),
    use: Type.String({ description: 'sig.' }),
  },
  { additionalProperties: true },
);
const JwksBody = Type.Object(
  {
    keys: Type.Array(JsonWebKey, {
      description: 'The current signing key first, then earlier ones that still verify tokens.',
    }),
  },
  { $id: 'JsonWebKeySet' }, // RFC 7517 §5
);

export const jwksRoutes: FastifyPluginAsyncTypebox<{ face: Auth }> = async (app, { face }) => {
  app.get(
    '/.well-known/jwks.json',
    {
      config: PUBLIC,
      schema: {
        operationId: 'getJwks',
        tags: ['authorization'],
        summary: 'The public keys that verify access tokens (JWKS).',
        response: { 200: Answer('The public keys (JWKS).', JwksBody) },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      // jose types every JWK member as optional; an exported P-256 public key has each of them.
      return face.tokens.publicJwks as Static<typeof JwksBody>;
    },
  );
};

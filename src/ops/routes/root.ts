// GET /: a newcomer who opens the service's address lands on the API reference (Swagger UI).
// Hidden from the documents: a redirect is no operation of the API.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PUBLIC } from '../../http/access.ts';

export const REFERENCE_PATH = '/swagger';

export const rootRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/', { config: PUBLIC, schema: { hide: true } }, async (_request, reply) =>
    reply.redirect(REFERENCE_PATH, 302),
  );
};

// GET /metrics: Prometheus text, for an operator's token.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OPERATOR } from '../../http/access.ts';
import type { Services } from '../../services.ts';

export const metricsRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  // Not public (SPEC.md §2 exempts only health, docs, JWKS and media): the metrics name routes,
  // volumes and failure rates. Prometheus gets a token as an operator's application, with its
  // `oauth2` client_credentials configuration (docs/OPERATIONS.md).
  app.get(
    '/metrics',
    {
      config: OPERATOR,
      schema: {
        tags: ['operations'],
        summary: 'Prometheus metrics (text exposition format).',
        description:
          "Scrape with an operator application's token (client_credentials grant at /auth/token); Prometheus does it with its `oauth2` configuration.",
        produces: ['text/plain'],
      },
    },
    async (_request, reply) => {
      reply.type(services.metrics.registry.contentType);
      return services.metrics.registry.metrics();
    },
  );
};

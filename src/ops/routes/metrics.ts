// GET /metrics: Prometheus text, for an operator's token.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Registry } from 'prom-client';
import { OPERATOR } from '../../http/access.ts';
import type { Ops } from '../index.ts';

export const metricsRoutes: FastifyPluginAsyncTypebox<Ops> = async (app, ops) => {
  // Not public (SPEC.md §2 exempts only health, docs, JWKS and media): the metrics name routes,
  // volumes and failure rates. Prometheus gets a token as an operator's application, with its
  // `oauth2` client_credentials configuration (docs/OPERATIONS.md).
  app.get(
    '/metrics',
    {
      config: OPERATOR,
      schema: {
        operationId: 'getMetrics',
        tags: ['operations'],
        summary: 'Prometheus metrics (text exposition format).',
        description:
          "Scrape with an operator application's token (client_credentials grant at /auth/token); Prometheus does it with its `oauth2` configuration.",
        // The registry's text is sent as it is (fastify does not serialize a string of a non-JSON type).
        response: {
          200: {
            description: 'The metrics, in the Prometheus text exposition format (version 0.0.4).',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (_request, reply) => {
      const text = await ops.metrics();
      reply.type(Registry.PROMETHEUS_CONTENT_TYPE);
      return text;
    },
  );
};

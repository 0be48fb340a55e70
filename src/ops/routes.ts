// Operations: liveness, readiness and metrics.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { COUNTED_IN_PROCESS } from '../http/rate-limit.ts';
import type { Services } from '../services.ts';

const Health = Type.Object({ status: Type.Literal('ok') });
const Availability = Type.Object({
  status: Type.Union([Type.Literal('available'), Type.Literal('unavailable')]),
  checks: Type.Object({
    database: Type.Boolean(),
    migrations: Type.Boolean(),
    jobs: Type.Boolean(),
    redis: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('not configured')], {
      description: '`degraded`: REDIS_URL is set but Redis is unreachable; rate limits and failed-token counters use process memory meanwhile. Does not make the service unavailable.',
    }),
  }),
});

export const opsRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/health',
    {
      // Never touches Redis, not even for its rate-limit count.
      config: { access: 'public', rateLimit: COUNTED_IN_PROCESS },
      schema: { tags: ['operations'], summary: 'The process is alive.', response: { 200: Health } },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/availability',
    {
      config: { access: 'public' },
      schema: {
        tags: ['operations'],
        summary: 'The service can serve: database reachable, migrations applied, job runner running (Redis is reported, never required).',
        response: { 200: Availability, 503: Availability },
      },
    },
    async (_request, reply) => {
      const checks = await services.readiness();
      const ok = checks.database && checks.migrations && checks.jobs;
      return reply.code(ok ? 200 : 503).send({ status: ok ? 'available' : 'unavailable', checks });
    },
  );

  app.get(
    '/metrics',
    {
      config: { access: 'public' },
      schema: { tags: ['operations'], summary: 'Prometheus metrics (text exposition format).', produces: ['text/plain'] },
    },
    async (_request, reply) => {
      reply.type(services.metrics.registry.contentType);
      return services.metrics.registry.metrics();
    },
  );
};

// GET /health (the process is alive) and GET /availability (it can serve): public, for probes.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PUBLIC } from '../../http/access.ts';
import { Answer } from '../../http/schemas.ts';
import { COUNTED_IN_PROCESS } from '../../http/rate-limit.ts';
import type { Ops } from '../index.ts';

const AVAILABILITY_RETRY_AFTER_SECONDS = 5;

const Health = Type.Object({ status: Type.Literal('ok') }, { $id: 'ServiceHealth' });
// Named: the same body answers 200 (available) and 503 (unavailable).
const Availability = Type.Object(
  {
    status: Type.Union([Type.Literal('available'), Type.Literal('unavailable')]),
    draining: Type.Optional(
      Type.Literal(true, {
        description:
          'Present while the instance is shutting down (SIGTERM): it finishes what it has and answers 503 here, so ' +
          'that a load balancer sends it nothing new, until it stops accepting SHUTDOWN_DRAIN_DELAY_SECONDS later.',
      }),
    ),
    checks: Type.Object({
      database: Type.Boolean(),
      migrations: Type.Boolean(),
      jobs: Type.Union([Type.Boolean(), Type.Literal('starting')], {
        description:
          '`starting`: the job queue is setting up its workers, just after the start (jobs are already accepted); does not make the service unavailable.',
      }),
      redis: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('not configured')], {
        description:
          '`degraded`: REDIS_URL is set but Redis is unreachable; rate limits and failed-token counters use process memory meanwhile. Does not make the service unavailable.',
      }),
    }),
  },
  { $id: 'ServiceAvailability' },
);

export const healthRoutes: FastifyPluginAsyncTypebox<Ops> = async (app, ops) => {
  app.get(
    '/health',
    {
      // Never touches Redis, not even for its rate-limit count.
      config: { ...PUBLIC, rateLimit: COUNTED_IN_PROCESS },
      schema: {
        operationId: 'getHealth',
        tags: ['operations'],
        summary: 'The process is alive.',
        response: { 200: Answer('The process is alive.', Health) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/availability',
    {
      config: PUBLIC,
      schema: {
        operationId: 'getAvailability',
        tags: ['operations'],
        summary:
          'The service can serve: database reachable, migrations applied, job runner running (Redis is reported, never required).',
        description:
          '`database`: a statement answers within 2 s. `migrations`: every migration of this version is applied. `jobs`: the job queue runs in this process and the database it works from answers (`starting` while its workers are set up, just after the start: not a reason for 503). `redis`: ok, degraded (unreachable: each instance counts in memory) or not configured; never a reason for 503. 503 (with Retry-After) when any of the others is false, or while the instance drains (`draining`: it is shutting down).',
        response: {
          200: Answer('The service can serve; every check is reported.', Availability),
          // In the content form: the 503 is this body, not the face's problem+json (src/http/access.ts).
          503: {
            description:
              'The service cannot serve now (a check is false, or it is draining): retry after the Retry-After seconds.',
            content: { 'application/json': { schema: Availability } },
          },
        },
      },
    },
    async (_request, reply) => {
      const checks = await ops.readiness();
      // Read after the checks: a drain that began while they ran is answered 503.
      const draining = ops.draining();
      const ok = !draining && checks.database && checks.migrations && checks.jobs !== false;
      if (!ok) reply.header('retry-after', String(AVAILABILITY_RETRY_AFTER_SECONDS));
      return reply
        .code(ok ? 200 : 503)
        .send({ status: ok ? 'available' : 'unavailable', ...(draining ? { draining } : {}), checks });
    },
  );
};

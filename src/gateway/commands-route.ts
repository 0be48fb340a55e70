// GET /gateway/v1/commands — the controller's long-poll for its commands. The facility is the
// token's (a gateway credential names one facility). With `wait`, an empty answer is held until
// a command is written for the facility (a wake-up from this process or, on PostgreSQL, from
// another instance through LISTEN/NOTIFY), the wait ends, the client goes away, or the service
// shuts down — then `{"commands": []}` at once, so that SIGTERM is not held by waiting polls.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../auth/guard.ts';
import { forbidden, notFound } from '../errors.ts';
import { deliverCommands } from '../access-control/commands.ts';
import { COMMAND_TYPES } from '../access-control/rules.ts';
import { StringEnum } from '../access-control/schemas.ts';
import type { Services } from '../services.ts';

export const MAX_WAIT_SECONDS = 30;
export const MAX_COMMANDS_PER_POLL = 1000;

const Query = Type.Object({
  after: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'The last sequence the controller applied; 0 (default) from the first unacknowledged command.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_COMMANDS_PER_POLL, default: 100, description: `1–${MAX_COMMANDS_PER_POLL}, default 100.` })),
  wait: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_WAIT_SECONDS, default: 0, description: `Seconds to hold the request open until a command exists (0–${MAX_WAIT_SECONDS}; default 0: answer at once).` })),
  facilityId: Type.Optional(Type.String({ description: "Optional; when given it must be the token's own facility (else 404)." })),
});

const DeliveredCommand = Type.Object({
  id: Type.String({ description: 'Acknowledge with an event of type 3 whose data.commandId is this id.' }),
  sequence: Type.Integer(),
  type: StringEnum(COMMAND_TYPES),
  payload: Type.Unknown({ description: 'What to apply; visitors carry their accessCode in clear, on this channel only.' }),
  createdAt: Type.String({ format: 'date-time' }),
});

export const gatewayCommandRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const ac = services.accessControl;
  // Before the server stops accepting: answer every waiting poll now.
  app.addHook('preClose', async () => ac.beginClosing());

  app.get(
    '/gateway/v1/commands',
    {
      config: { access: { scopes: ['gateway'] } },
      schema: {
        tags: ['gateway'],
        summary: "The facility's unacknowledged commands after a sequence, in order (long poll with wait).",
        description:
          "For the token's facility: unacknowledged, unexpired commands with sequence > after, in sequence order, at most limit. They are marked delivered. With wait, an empty answer waits up to wait seconds for a new command and returns it at once; `{\"commands\": []}` when none came. A controller that restarts polls from after=0 and receives every unacknowledged command again. Acknowledge each with an event of type 3 (Command Received) whose data.commandId is the command's id (POST /gateway/v1/events).",
        querystring: Query,
        response: { 200: Type.Object({ commands: Type.Array(DeliveredCommand) }) },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      if (principal.kind !== 'gateway') throw forbidden('Only a gateway controller credential can fetch commands.');
      const facilityId = principal.facilityId;
      if (request.query.facilityId !== undefined && request.query.facilityId !== facilityId) throw notFound('The facility');
      const after = request.query.after ?? 0;
      const limit = request.query.limit ?? 100;
      const deadline = Date.now() + (request.query.wait ?? 0) * 1000;
      reply.header('cache-control', 'no-store');

      // The client going away ends the wait (no work for a closed socket).
      const abort = new AbortController();
      const onClose = () => abort.abort();
      reply.raw.once('close', onClose);
      try {
        for (;;) {
          // Register interest before looking, so that a command committed in between still wakes us.
          const remaining = deadline - Date.now();
          const woken = remaining > 0 ? ac.signals.wait(facilityId, remaining, abort.signal) : null;
          const commands = await deliverCommands(ac.db, ac.vault, facilityId, after, limit);
          if (commands.length > 0 || !woken) {
            abort.abort();
            return { commands };
          }
          const result = await woken;
          if (result !== 'notified') return { commands: [] };
        }
      } finally {
        reply.raw.off('close', onClose);
      }
    },
  );
};

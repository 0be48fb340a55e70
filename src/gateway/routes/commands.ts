// GET /gateway/v1/commands — the controller's long poll for its commands (src/commands/poll.ts).
// The facility is the token's (a gateway credential names one facility).
import { EntityId, Answer, StringEnum } from '../../http/schemas.ts';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { COMMAND_TYPES, type Commands } from '../../commands/index.ts';
import { principalOf } from '../../http/caller.ts';
import { forbidden, notFound } from '../../errors.ts';
import { scoped } from '../../http/access.ts';

import { Refused } from '../../http/problem.ts';

export const MAX_WAIT_SECONDS = 30;
export const MAX_COMMANDS_PER_POLL = 1000;

const Query = Type.Object({
  after: Type.Optional(
    Type.Integer({
      minimum: 0,
      default: 0,
      description: 'The last sequence the controller applied; 0 (default) from the first unacknowledged command.',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_COMMANDS_PER_POLL,
      default: 100,
      description: `1–${MAX_COMMANDS_PER_POLL}, default 100.`,
    }),
  ),
  wait: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_WAIT_SECONDS,
      default: 0,
      description:
        `Seconds to hold the request open until a command exists (0–${MAX_WAIT_SECONDS}; ` +
        'default 0: answer at once).',
    }),
  ),
  facilityId: Type.Optional(EntityId("Optional; when given it must be the token's own facility (else 404).")),
});

const DeliveredCommand = Type.Object(
  {
    id: Type.String({ description: 'Acknowledge with an event of type 3 whose data.commandId is this id.' }),
    sequence: Type.Integer(),
    type: StringEnum(COMMAND_TYPES),
    payload: Type.Unknown({
      description: 'What to apply; visitors carry their accessCode in clear, on this channel only.',
    }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'DeliveredCommand' },
);

const CommandPoll = Type.Object(
  { commands: Type.Array(DeliveredCommand) },
  {
    $id: 'CommandPoll',
    examples: [
      {
        commands: [
          {
            id: '7d1f0a52-3c1e-4b7a-9a55-2f0c8e6b9d41',
            sequence: 418,
            type: 'visitor.upsert',
            payload: {
              action: 'create',
              visitor: {
                id: 5821,
                unitId: 301,
                unitNumber: 'A-101',
                firstName: 'Maria',
                lastName: 'Lopez',
                isTenant: true,
                isEnabled: true,
                timeGroup: {
                  id: 23,
                  name: '24 Hours',
                  timeZone: 'America/New_York',
                  windows: [{ days: [0, 1, 2, 3, 4, 5, 6], start: '00:00', end: '24:00' }],
                },
                accessProfile: { id: 24, name: 'All Access', accessAreas: null },
                accessCode: '0042',
              },
              unit: { id: 301, unitNumber: 'A-101', status: 'Rented' },
            },
            createdAt: '2026-11-25T14:02:57Z',
          },
        ],
      },
    ],
  },
);

const DESCRIPTION = [
  "For the token's facility: unacknowledged, unexpired commands with sequence > after, in sequence order,",
  'at most limit. They are marked delivered. With wait, an empty answer waits up to wait seconds for a new',
  'command and returns it at once; `{"commands": []}` when none came. A controller that restarts polls from',
  'after=0 and receives every unacknowledged command again. Acknowledge each with an event of type 3',
  "(Command Received) whose data.commandId is the command's id (POST /gateway/v1/events).",
].join(' ');

export const gatewayCommandRoutes: FastifyPluginAsyncTypebox<{ commands: Commands }> = async (app, { commands }) => {
  // Before the server stops accepting: answer every waiting poll now.
  app.addHook('preClose', async () => commands.beginClosing());

  app.get(
    '/gateway/v1/commands',
    {
      // The request deadline starts counting after the longest wait.
      config: { ...scoped('gateway'), waitsUpToMs: MAX_WAIT_SECONDS * 1000 },
      schema: {
        operationId: 'pollGatewayCommands',
        tags: ['gateway'],
        summary: "The facility's unacknowledged commands after a sequence, in order (long poll with wait).",
        description: DESCRIPTION,
        querystring: Query,
        response: {
          200: Answer('The commands, in sequence order; `{"commands": []}` when none came.', CommandPoll),
          404: Refused('The facilityId given is not the token’s facility.'),
        },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      if (principal.kind !== 'gateway') throw forbidden('Only a gateway controller credential can fetch commands.');
      const { after = 0, limit = 100, wait = 0, facilityId } = request.query;
      if (facilityId !== undefined && facilityId !== principal.facilityId) throw notFound('The facility');
      reply.header('cache-control', 'no-store');
      const poll = { after, limit, waitMs: wait * 1000 };
      const delivered = await untilClientGone(reply, (gone) =>
        commands.waitForCommands(principal.facilityId, poll, gone),
      );
      return { commands: delivered };
    },
  );
};

/** Runs the work with a signal that fires when the client goes away before the answer. */
async function untilClientGone<T>(reply: FastifyReply, work: (gone: AbortSignal) => Promise<T>): Promise<T> {
  const gone = new AbortController();
  const onClose = () => gone.abort();
  reply.raw.once('close', onClose);
  try {
    return await work(gone.signal);
  } finally {
    reply.raw.off('close', onClose);
  }
}

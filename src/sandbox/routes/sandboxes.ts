// /sandboxes: an account's own sandboxes (an account key's token; a sandbox's token owns none).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { scoped } from '../../http/access.ts';
import { principalOf } from '../../http/caller.ts';
import { Refused } from '../../http/problem.ts';
import { Answer } from '../../http/schemas.ts';
import { ownerOf, type Sandboxes } from '../index.ts';
import { CreatedSandbox, CreateSandboxBody, Sandbox, SANDBOX_NOTE, SandboxParams, tags } from '../schemas.ts';

const NOT_FOUND = Refused(
  'No sandbox of the caller’s account has that id: another owner’s, or a production account (NOT_FOUND).',
);
const FORBIDDEN = Refused(
  'The token lacks the scope, or is not an account key’s; or it is a sandbox’s: a sandbox owns no sandboxes (SANDBOX_CANNOT_OWN_SANDBOXES).',
);

export const sandboxRoutes: FastifyPluginAsyncTypebox<{ face: Sandboxes }> = async (app, { face }) => {
  app.post(
    '/sandboxes',
    {
      config: scoped('accesscontrol:write'),
      schema: {
        operationId: 'createSandbox',
        tags,
        summary: 'Create a sandbox of the caller’s account, its facilities seeded.',
        description:
          `${SANDBOX_NOTE} The sandbox’s account key is bound to the caller’s application, with the caller’s ` +
          'scopes; each seeded facility gets a controller credential. Seeded units and visitors are the facility’s ' +
          'initial state: no command is written for them.',
        body: CreateSandboxBody,
        response: {
          201: Answer('The sandbox and its credentials; the secrets are shown only here.', CreatedSandbox),
          403: FORBIDDEN,
          409: Refused('The account has its 5 sandboxes already (SANDBOX_LIMIT): delete one first.'),
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await face.create({ ...ownerOf(principalOf(request)), ...request.body })),
  );

  app.get(
    '/sandboxes',
    {
      config: scoped('accesscontrol:read'),
      schema: {
        operationId: 'listSandboxes',
        tags,
        summary: 'List the caller’s account’s sandboxes, newest first.',
        description: SANDBOX_NOTE,
        response: { 200: Answer('The sandboxes (never their secrets).', Type.Array(Sandbox)), 403: FORBIDDEN },
      },
    },
    async (request) => face.list(ownerOf(principalOf(request)).ownerAccountId),
  );

  app.get(
    '/sandboxes/:sandboxId',
    {
      config: scoped('accesscontrol:read'),
      schema: {
        operationId: 'getSandbox',
        tags,
        summary: 'Read one of the caller’s account’s sandboxes.',
        params: SandboxParams,
        response: { 200: Answer('The sandbox.', Sandbox), 403: FORBIDDEN, 404: NOT_FOUND },
      },
    },
    async (request) => face.get(ownerOf(principalOf(request)).ownerAccountId, request.params.sandboxId),
  );

  app.delete(
    '/sandboxes/:sandboxId',
    {
      config: scoped('accesscontrol:write'),
      schema: {
        operationId: 'deleteSandbox',
        tags,
        summary: 'Delete a sandbox with every row it has.',
        description:
          'Its facilities, units, visitors, commands, events, webhook subscriptions and deliveries, credentials and ' +
          'their tokens’ refresh tokens: all gone. Its access tokens are refused from then on (their credential is gone).',
        params: SandboxParams,
        response: { 204: Answer('Deleted (no body).', Type.Null()), 403: FORBIDDEN, 404: NOT_FOUND },
      },
    },
    async (request, reply) => {
      await face.delete(ownerOf(principalOf(request)).ownerAccountId, request.params.sandboxId);
      return reply.code(204).send(null);
    },
  );
};

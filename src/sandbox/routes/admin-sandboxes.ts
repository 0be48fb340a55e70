// /admin/accounts/{accountId}/sandboxes (the operator): an account's sandboxes, made for one of its PMS
// applications — nested under the account they belong to, as the sandbox belongs to it.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OPERATOR } from '../../http/access.ts';
import { Refused } from '../../http/problem.ts';
import { Answer } from '../../http/schemas.ts';
import type { Sandboxes } from '../index.ts';
import {
  AccountParams,
  AccountSandboxParams,
  AdminCreateSandboxBody,
  CreatedSandbox,
  Sandbox,
  SANDBOX_NOTE,
} from '../schemas.ts';

const tags = ['admin'];
const NOT_FOUND = Refused('The account has no sandbox with that id (NOT_FOUND).');

export const adminSandboxRoutes: FastifyPluginAsyncTypebox<{ face: Sandboxes }> = async (app, { face }) => {
  app.post(
    '/admin/accounts/:accountId/sandboxes',
    {
      config: OPERATOR,
      schema: {
        operationId: 'adminCreateSandbox',
        tags,
        summary: 'Create a sandbox of an account, for one of its PMS applications.',
        description: `${SANDBOX_NOTE} The sandbox’s account key is bound to the application named (clientId).`,
        params: AccountParams,
        body: AdminCreateSandboxBody,
        response: {
          201: Answer('The sandbox and its credentials; the secrets are shown only here.', CreatedSandbox),
          403: Refused('The token lacks the scope; or the account is itself a sandbox (SANDBOX_CANNOT_OWN_SANDBOXES).'),
          404: Refused('No account has that id, or no active application has that client id (NOT_FOUND).'),
          409: Refused('The account has its 5 sandboxes already (SANDBOX_LIMIT): delete one first.'),
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await face.create({ ownerAccountId: request.params.accountId, ...request.body })),
  );

  app.get(
    '/admin/accounts/:accountId/sandboxes',
    {
      config: OPERATOR,
      schema: {
        operationId: 'adminListSandboxes',
        tags,
        summary: 'List an account’s sandboxes, newest first.',
        params: AccountParams,
        response: {
          200: Answer('The sandboxes (never their secrets); none for an unknown account.', Type.Array(Sandbox)),
        },
      },
    },
    async (request) => face.list(request.params.accountId),
  );

  app.get(
    '/admin/accounts/:accountId/sandboxes/:sandboxId',
    {
      config: OPERATOR,
      schema: {
        operationId: 'adminGetSandbox',
        tags,
        summary: 'Read one of an account’s sandboxes.',
        params: AccountSandboxParams,
        response: { 200: Answer('The sandbox.', Sandbox), 404: NOT_FOUND },
      },
    },
    async (request) => face.get(request.params.accountId, request.params.sandboxId),
  );

  app.delete(
    '/admin/accounts/:accountId/sandboxes/:sandboxId',
    {
      config: OPERATOR,
      schema: {
        operationId: 'adminDeleteSandbox',
        tags,
        summary: 'Delete one of an account’s sandboxes with every row it has.',
        params: AccountSandboxParams,
        response: { 204: Answer('Deleted (no body).', Type.Null()), 404: NOT_FOUND },
      },
    },
    async (request, reply) => {
      await face.delete(request.params.accountId, request.params.sandboxId);
      return reply.code(204).send(null);
    },
  );
};

// /admin/accounts (the operator).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OPERATOR } from '../../http/access.ts';
import { Answer } from '../../http/schemas.ts';
import type { Tenancy } from '../index.ts';
import { Account, CreateAccountBody, tags } from '../schemas.ts';

export const accountRoutes: FastifyPluginAsyncTypebox<{ face: Tenancy }> = async (app, { face }) => {
  app.post(
    '/admin/accounts',
    {
      config: OPERATOR,
      schema: {
        operationId: 'createAccount',
        tags,
        summary: 'Create an account.',
        body: CreateAccountBody,
        response: { 201: Answer('The account, created.', Account) },
      },
    },
    async (request, reply) => reply.code(201).send(await face.createAccount(request.body)),
  );

  app.get(
    '/admin/accounts',
    {
      config: OPERATOR,
      schema: {
        operationId: 'listAccounts',
        tags,
        summary: 'List accounts.',
        response: { 200: Answer('Every account.', Type.Array(Account)) },
      },
    },
    async () => face.listAccounts(),
  );
};

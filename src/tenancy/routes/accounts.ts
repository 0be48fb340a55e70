// /admin/accounts (the operator).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OPERATOR } from '../../http/access.ts';
import { Answer } from '../../http/schemas.ts';
import type { Services } from '../../services.ts';
import { createAccount, listAccounts } from '../accounts.ts';
import { Account, CreateAccountBody, tags } from '../schemas.ts';

export const accountRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { db } = services.database;

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
    async (request, reply) => reply.code(201).send(await createAccount(db, request.body)),
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
    async () => listAccounts(db),
  );
};

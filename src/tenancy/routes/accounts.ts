// /admin/accounts (the operator).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OPERATOR } from '../../http/access.ts';
import type { Services } from '../../services.ts';
import { createAccount, listAccounts } from '../accounts.ts';
import { Account, tags } from '../schemas.ts';

export const accountRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const { db } = services.database;

  app.post(
    '/admin/accounts',
    {
      config: OPERATOR,
      schema: {
        tags,
        summary: 'Create an account.',
        body: Type.Object({ name: Type.String() }),
        response: { 201: Account },
      },
    },
    async (request, reply) => reply.code(201).send(await createAccount(db, request.body)),
  );

  app.get(
    '/admin/accounts',
    { config: OPERATOR, schema: { tags, summary: 'List accounts.', response: { 200: Type.Array(Account) } } },
    async () => listAccounts(db),
  );
};

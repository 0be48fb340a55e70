// /admin/account-keys (the operator): the keys with which an account authorises a PMS application.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OPERATOR } from '../../http/access.ts';
import { Answer, EntityId } from '../../http/schemas.ts';
import type { Tenancy } from '../index.ts';
import { AccountKey, CreatedAccountKey, REVOKE_NOTE, REVOKED_NOT_FOUND, Revoked, tags } from '../schemas.ts';
import { Refused } from '../../http/problem.ts';

const AccountKeyBody = Type.Object({
  accountId: EntityId('The account the key acts for.'),
  clientId: Type.String(),
  scopes: Type.Optional(
    Type.Array(Type.String(), {
      maxItems: 10,
      description:
        'Default accesscontrol:read, accesscontrol:write, accessevent:read. accesscontrol:codes (visitor reads ' +
        'include the gate code, every such read audited) is granted only when named here.',
    }),
  ),
});

export const accountKeyRoutes: FastifyPluginAsyncTypebox<{ face: Tenancy }> = async (app, { face }) => {
  app.post(
    '/admin/account-keys',
    {
      config: OPERATOR,
      schema: {
        operationId: 'createAccountKey',
        tags,
        summary: "Create an account API key for an application (the password grant's username and password).",
        body: AccountKeyBody,
        response: {
          201: Answer('The key and its secret; the secret is shown only here.', CreatedAccountKey),
          404: Refused('No account has that id, or no active application has that client id (NOT_FOUND).'),
        },
      },
    },
    async (request, reply) => reply.code(201).send(await face.createAccountKey(request.body)),
  );

  app.get(
    '/admin/account-keys',
    {
      config: OPERATOR,
      schema: {
        operationId: 'listAccountKeys',
        tags,
        summary: 'List account API keys (never their secrets).',
        querystring: Type.Object({ accountId: Type.Optional(EntityId('Only this account’s keys.')) }),
        response: {
          200: Answer('The keys, of every account or of the one named; revoked ones included.', Type.Array(AccountKey)),
        },
      },
    },
    async (request) => face.listAccountKeys(request.query.accountId),
  );

  app.post(
    '/admin/account-keys/:apiKey/revoke',
    {
      config: OPERATOR,
      schema: {
        operationId: 'revokeAccountKey',
        tags,
        summary: 'Revoke an account API key.',
        description: REVOKE_NOTE,
        params: Type.Object({ apiKey: Type.String() }),
        response: { 200: Answer('The key, revoked.', Revoked), 404: Refused(REVOKED_NOT_FOUND) },
      },
    },
    async (request) => face.revokeAccountKey(request.params.apiKey),
  );
};

// Admin routes for tenancy (scope `admin`: an operator application's client_credentials token).
// The same operations as `gatehouse admin …`; secrets appear once, in the 201 answer.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Scope } from '../http/access.ts';
import type { Services } from '../services.ts';
import * as admin from './admin.ts';

const ADMIN = { access: { scopes: ['admin'] as Scope[] } };
const tags = ['admin'];
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

const Account = Type.Object({ id: Type.String(), name: Type.String(), createdAt: Type.String() });
const Facility = Type.Object({
  id: Type.String(),
  accountId: Type.String(),
  name: Type.String(),
  propertyNumber: Nullable(Type.String()),
  timeZone: Type.String(),
  guid: Nullable(Type.String()),
  charityEnrolled: Type.Boolean(),
});
const Application = Type.Object({
  id: Type.String(),
  clientId: Type.String(),
  name: Type.String(),
  clientType: Nullable(Type.String()),
  facilityGuids: Type.Array(Type.String()),
  operator: Type.Boolean(),
  createdAt: Type.String(),
  revokedAt: Nullable(Type.String()),
});
const AccountKey = Type.Object({
  id: Type.String(),
  apiKey: Type.String(),
  accountId: Type.String(),
  clientId: Type.String(),
  scopes: Type.Array(Type.String()),
  createdAt: Type.String(),
  revokedAt: Nullable(Type.String()),
});
const Gateway = Type.Object({ id: Type.String(), clientId: Type.String(), facilityId: Type.String(), createdAt: Type.String(), revokedAt: Nullable(Type.String()) });
const ClientSecret = Type.Object({ id: Type.String(), clientId: Type.String(), clientSecret: Type.String({ description: 'Shown once; stored only as a hash.' }) });
const Revoked = Type.Object({ revoked: Type.Literal(true) }, { additionalProperties: true });
const REVOKE_NOTE =
  'Revocation refuses new tokens at once; tokens already issued are refused by the guard within 5 seconds (it re-checks each credential at most every 5 s), and refresh tokens of the credential are revoked.';

export const tenancyAdminRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  const db = services.database.db;

  app.post('/admin/accounts', { config: ADMIN, schema: { tags, summary: 'Create an account.', body: Type.Object({ name: Type.String() }), response: { 201: Account } } }, async (request, reply) =>
    reply.code(201).send(await admin.createAccount(db, request.body)),
  );
  app.get('/admin/accounts', { config: ADMIN, schema: { tags, summary: 'List accounts.', response: { 200: Type.Array(Account) } } }, async () => admin.listAccounts(db));

  app.post(
    '/admin/facilities',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Create a facility of an account.',
        body: Type.Object({
          accountId: Type.String(),
          name: Type.String(),
          timeZone: Type.String({ description: 'IANA time zone, e.g. America/Denver.' }),
          propertyNumber: Type.Optional(Type.String()),
          guid: Type.Optional(Type.String({ description: 'Auction facility identifier, 1–20 characters, unique across the service.' })),
          charityEnrolled: Type.Optional(Type.Boolean()),
        }),
        response: { 201: Facility },
      },
    },
    async (request, reply) => reply.code(201).send(await admin.createFacility(db, request.body)),
  );
  app.get(
    '/admin/facilities',
    { config: ADMIN, schema: { tags, summary: 'List facilities.', querystring: Type.Object({ accountId: Type.Optional(Type.String()) }), response: { 200: Type.Array(Facility) } } },
    async (request) => admin.listFacilities(db, request.query.accountId),
  );

  app.post(
    '/admin/applications',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: 'Create an application (OAuth client).',
        description: 'A PMS application (neither clientType nor operator), an auction partner (clientType and the facility guids it may auction), or an operator (admin scope).',
        body: Type.Object({
          name: Type.String(),
          clientType: Type.Optional(Type.String()),
          facilityGuids: Type.Optional(Type.Array(Type.String(), { maxItems: 10000 })),
          operator: Type.Optional(Type.Boolean()),
        }),
        response: { 201: ClientSecret },
      },
    },
    async (request, reply) => reply.code(201).send(await admin.createApplication(db, request.body)),
  );
  app.get('/admin/applications', { config: ADMIN, schema: { tags, summary: 'List applications.', response: { 200: Type.Array(Application) } } }, async () =>
    admin.listApplications(db),
  );
  app.post(
    '/admin/applications/:clientId/revoke',
    { config: ADMIN, schema: { tags, summary: 'Revoke an application.', description: REVOKE_NOTE, params: Type.Object({ clientId: Type.String() }), response: { 200: Revoked } } },
    async (request) => admin.revokeApplication(db, request.params.clientId),
  );

  app.post(
    '/admin/account-keys',
    {
      config: ADMIN,
      schema: {
        tags,
        summary: "Create an account API key for an application (the password grant's username and password).",
        body: Type.Object({ accountId: Type.String(), clientId: Type.String(), scopes: Type.Optional(Type.Array(Type.String(), { maxItems: 10 })) }),
        response: { 201: Type.Object({ id: Type.String(), apiKey: Type.String(), apiSecret: Type.String({ description: 'Shown once; stored only as a hash.' }) }) },
      },
    },
    async (request, reply) => reply.code(201).send(await admin.createAccountKey(db, request.body)),
  );
  app.get(
    '/admin/account-keys',
    { config: ADMIN, schema: { tags, summary: 'List account API keys (never their secrets).', querystring: Type.Object({ accountId: Type.Optional(Type.String()) }), response: { 200: Type.Array(AccountKey) } } },
    async (request) => admin.listAccountKeys(db, request.query.accountId),
  );
  app.post(
    '/admin/account-keys/:apiKey/revoke',
    { config: ADMIN, schema: { tags, summary: 'Revoke an account API key.', description: REVOKE_NOTE, params: Type.Object({ apiKey: Type.String() }), response: { 200: Revoked } } },
    async (request) => admin.revokeAccountKey(db, request.params.apiKey),
  );

  app.post(
    '/admin/gateways',
    {
      config: ADMIN,
      schema: { tags, summary: "Create a facility gateway controller's credentials.", body: Type.Object({ facilityId: Type.String() }), response: { 201: ClientSecret } },
    },
    async (request, reply) => reply.code(201).send(await admin.createGatewayCredential(db, request.body)),
  );
  app.get(
    '/admin/gateways',
    { config: ADMIN, schema: { tags, summary: 'List gateway credentials.', querystring: Type.Object({ facilityId: Type.Optional(Type.String()) }), response: { 200: Type.Array(Gateway) } } },
    async (request) => admin.listGatewayCredentials(db, request.query.facilityId),
  );
  app.post(
    '/admin/gateways/:clientId/revoke',
    { config: ADMIN, schema: { tags, summary: 'Revoke gateway credentials.', description: REVOKE_NOTE, params: Type.Object({ clientId: Type.String() }), response: { 200: Revoked } } },
    async (request) => admin.revokeGatewayCredential(db, request.params.clientId),
  );
};

// GET /admin/audit/code-reads (the operator): the record of every read that returned gate codes, and
// of every change answered ACCESS_CODE_IN_USE (code-conflicts.ts).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OPERATOR } from '../../http/access.ts';
import { Answer, EntityId } from '../../http/schemas.ts';
import type { AccessControl } from '../index.ts';

const CodeRead = Type.Object(
  {
    id: Type.Integer({ description: 'Increases with each record; page back with beforeId.' }),
    readAt: Type.String({ format: 'date-time' }),
    accountId: EntityId('The account whose key read the codes.'),
    facilityId: EntityId('The facility of the visitors.'),
    credentialId: Type.String({ description: 'The account key (its internal id) the token was issued for.' }),
    clientId: Type.String({ description: 'The application that used the key.' }),
    tokenId: Type.String({ description: 'The access token (jti).' }),
    requestId: Type.String({ description: 'The request id (X-Correlation-ID), to find the request in the logs.' }),
    route: Type.String({
      description:
        'The route read, e.g. GET /facilities/:facilityId/visitors; a change (POST …/visitors, …/update, …/enable) ' +
        'records an ACCESS_CODE_IN_USE answer.',
    }),
    visitorIds: Type.Array(EntityId('A visitor whose code was returned, or who holds the code a change met in use.')),
  },
  { $id: 'CodeRead' },
);

export const codeReadRoutes: FastifyPluginAsyncTypebox<{ face: AccessControl }> = async (app, { face }) => {
  app.get(
    '/admin/audit/code-reads',
    {
      config: OPERATOR,
      schema: {
        operationId: 'listCodeReads',
        tags: ['admin'],
        summary:
          'Reads that returned gate codes (scope accesscontrol:codes), and ACCESS_CODE_IN_USE answers, newest first.',
        description:
          'Who read, when, through which route, which visitors — never the codes. A change that met a code in use ' +
          '(ACCESS_CODE_IN_USE) told its caller that the code opens the gate: it is recorded too, naming the holder.',
        querystring: Type.Object({
          accountId: Type.Optional(EntityId('Only reads by this account.')),
          facilityId: Type.Optional(EntityId('Only reads of this facility’s visitors.')),
          visitorId: Type.Optional(EntityId('Only reads that returned (or met) this visitor’s code.')),
          beforeId: Type.Optional(Type.Integer({ minimum: 1, description: 'Only records older than this one.' })),
          limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: '1–1,000, default 100.' }),
        }),
        response: { 200: Answer('The records, newest first.', Type.Array(CodeRead)) },
      },
    },
    async (request) => face.listCodeReads(request.query),
  );
};

// /admin/facilities/{facilityId}/action-groups (the operator): a facility's action groups, and new
// ones (what `gatehouse admin action-group create` does). PMS tokens read and run the manual ones
// under /facilities/{facilityId}/actiongroups (action-groups.ts).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OPERATOR } from '../../http/access.ts';
import { Answer, EntityId } from '../../http/schemas.ts';
import type { FacilityStatus } from '../index.ts';
import { FacilityParams } from '../schemas.ts';
import { Refused } from '../../http/problem.ts';

const AdminActionGroup = Type.Object(
  {
    id: EntityId('The action group id.'),
    name: Type.String(),
    facilityId: EntityId('The facility id.'),
    isManual: Type.Boolean({ description: 'Triggered by hand (listed under …/actiongroups/manual).' }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'AdminActionGroup' },
);

// Named: this face takes its bodies in three media types (src/http/lenient.ts).
const CreateActionGroupBody = Type.Object(
  {
    name: Type.String({ description: '1–100 characters, unique within the facility in any case.' }),
    isManual: Type.Optional(Type.Boolean({ default: true })),
  },
  { $id: 'CreateActionGroupRequest' },
);

export const adminActionGroupRoutes: FastifyPluginAsyncTypebox<{ face: FacilityStatus }> = async (app, { face }) => {
  const tags = ['admin'];

  app.get(
    '/admin/facilities/:facilityId/action-groups',
    {
      config: OPERATOR,
      schema: {
        operationId: 'adminListActionGroups',
        tags,
        summary: 'A facility’s action groups.',
        params: FacilityParams,
        response: { 200: Answer('The facility’s action groups, manual or not.', Type.Array(AdminActionGroup)) },
      },
    },
    async (request) => face.listActionGroups(request.params.facilityId),
  );

  app.post(
    '/admin/facilities/:facilityId/action-groups',
    {
      config: OPERATOR,
      schema: {
        operationId: 'createActionGroup',
        tags,
        summary: 'Add an action group to a facility.',
        description: '404 for a facility that does not exist; 409 ACTION_GROUP_NAME_TAKEN for a name it already has.',
        params: FacilityParams,
        body: CreateActionGroupBody,
        response: {
          201: Answer('The action group, created.', AdminActionGroup),
          404: Refused('The facility does not exist.'),
          409: Refused('ACTION_GROUP_NAME_TAKEN: the facility already has an action group of that name.'),
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await face.createActionGroup({ facilityId: request.params.facilityId, ...request.body })),
  );
};

// GET /gatewayevents/types (3.0): the event catalogue.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { EventRouteOptions } from './common.ts';
import { EVENT_TYPE_LIST, EVENT_TYPES } from '../catalogue.ts';
import { Answer } from '../../http/schemas.ts';
import { EventTypeList } from '../schemas.ts';
import { TYPES_ACCESS, V3_NOTE } from './common.ts';

export const eventTypeRoutes: FastifyPluginAsyncTypebox<EventRouteOptions> = async (app) => {
  app.get(
    '/gatewayevents/types',
    {
      config: TYPES_ACCESS,
      schema: {
        operationId: 'listGatewayEventTypes',
        tags: ['access events'],
        summary: 'The event types.',
        description: `Every event type a gateway controller reports: ${EVENT_TYPE_LIST}. ${V3_NOTE}`,
        querystring: Type.Object({ 'api-version': Type.Optional(Type.String()) }),
        response: { 200: Answer('The event types, by number.', EventTypeList) },
      },
    },
    async () => [...EVENT_TYPES],
  );
};

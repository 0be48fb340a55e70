// The gateway controller's face (/gateway/v1): the one plugin app.ts registers — event ingest
// (routes/events.ts) and the command long poll (routes/commands.ts).
//
// This face has no index.ts and no create<Face>(): it owns no long-lived part, no table, no job
// and no operation of its own. Its routes are the controller's door to two other faces' work —
// the ingest of src/events and the command poll of src/access-control (poll.ts) — built by those
// faces' create<Face>() in the composition root and reached through `services`.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services.ts';
import { gatewayCommandRoutes } from './commands.ts';
import { gatewayEventRoutes } from './events.ts';

export const gatewayRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, options) => {
  await app.register(gatewayEventRoutes, options);
  await app.register(gatewayCommandRoutes, options);
};

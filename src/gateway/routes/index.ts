// The gateway controller's face (/gateway/v1): the one plugin app.ts registers — event ingest
// (routes/events.ts), the command long poll (routes/commands.ts) and the digest of what the
// controller holds (routes/digest.ts).
//
// This face has no index.ts and no create<Face>(): it owns no long-lived part, no table, no job
// and no operation of its own. Its routes are the controller's door to three other faces' work —
// the ingest of src/events, the command poll of src/commands, the drift comparison of src/drift —
// built by those faces' create<Face>() in the composition root and handed in by app.ts: each route
// plugin receives the one face it calls.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Commands } from '../../commands/index.ts';
import type { Drift } from '../../drift/index.ts';
import type { Events } from '../../events/index.ts';
import { gatewayCommandRoutes } from './commands.ts';
import { gatewayDigestRoutes } from './digest.ts';
import { gatewayEventRoutes } from './events.ts';

export const gatewayRoutes: FastifyPluginAsyncTypebox<{ events: Events; commands: Commands; drift: Drift }> = async (
  app,
  { events, commands, drift },
) => {
  await app.register(gatewayEventRoutes, { events });
  await app.register(gatewayCommandRoutes, { commands });
  await app.register(gatewayDigestRoutes, { drift });
};

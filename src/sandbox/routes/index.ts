// The sandbox face's routes: the account's own (/sandboxes), the operator's (/admin/accounts/{id}/sandboxes)
// and the controls of a sandbox facility's simulated controller (/sandbox/facilities/{id}/…).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { SandboxControllers, Sandboxes } from '../index.ts';
import { adminSandboxRoutes } from './admin-sandboxes.ts';
import { controlRoutes } from './controls.ts';
import { sandboxRoutes } from './sandboxes.ts';

export const sandboxFaceRoutes: FastifyPluginAsyncTypebox<{
  face: Sandboxes;
  controllers: SandboxControllers;
}> = async (app, { face, controllers }) => {
  await app.register(sandboxRoutes, { face });
  await app.register(adminSandboxRoutes, { face });
  await app.register(controlRoutes, { controllers });
};

// The sandbox face's routes: the account's own (/sandboxes) and the operator's (/admin/accounts/{id}/sandboxes).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Sandboxes } from '../index.ts';
import { adminSandboxRoutes } from './admin-sandboxes.ts';
import { sandboxRoutes } from './sandboxes.ts';

export const sandboxFaceRoutes: FastifyPluginAsyncTypebox<{ face: Sandboxes }> = async (app, options) => {
  await app.register(sandboxRoutes, options);
  await app.register(adminSandboxRoutes, options);
};

// The authorization face's routes: the token endpoint, whoami and the JWKS.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Auth } from '../index.ts';
import { jwksRoutes } from './jwks.ts';
import { tokenRoutes } from './token.ts';
import { whoamiRoutes } from './whoami.ts';

export const authRoutes: FastifyPluginAsyncTypebox<{ face: Auth }> = async (app, options) => {
  for (const routes of [tokenRoutes, whoamiRoutes, jwksRoutes]) await app.register(routes, options);
};

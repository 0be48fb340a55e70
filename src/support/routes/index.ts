// The support room's routes: the notifications (/admin/notifications…), read and resolved by the
// console and any operator tool.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Support } from '../index.ts';
import { notificationRoutes } from './notifications.ts';

export const supportRoutes: FastifyPluginAsyncTypebox<{ face: Support }> = async (app, options) => {
  await app.register(notificationRoutes, options);
};

// The support room's routes: the notifications (/admin/notifications…), read and resolved by the
// console and any operator tool.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../services.ts';
import { notificationRoutes } from './notifications.ts';

export const supportRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async (app, { services }) => {
  await app.register(notificationRoutes, { face: services.support });
};

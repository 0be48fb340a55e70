// The command queue's routes: the PMS's reads of a facility's commands (/facilities/{facilityId}/
// commands). They belong to the PMS API, whose compatibility rules hold for them (a GET that carries
// a content type and an empty body): app.ts binds this plugin to the face and hands it to access
// control's routes plugin, which registers it in its scope in the order of the API document. The
// controller's poll, GET /gateway/v1/commands, is the gateway face's route over waitForCommands.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Commands } from '../index.ts';
import { commandListRoutes } from './commands.ts';

export const commandRoutes: FastifyPluginAsyncTypebox<{ face: Commands }> = async (app, options) => {
  await app.register(commandListRoutes, options);
};

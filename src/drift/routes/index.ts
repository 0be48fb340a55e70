// The drift face's routes: the PMS's read of a facility's drifts (/facilities/{facilityId}/drift).
// It belongs to the PMS API, whose compatibility rules hold for it: app.ts binds this plugin to the
// face and hands it to access control's routes plugin, which registers it in its scope. The
// controller's side, POST /gateway/v1/digest…, is the gateway face's route over compareDigest.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Drift } from '../index.ts';
import { driftListRoutes } from './drift.ts';

export const driftRoutes: FastifyPluginAsyncTypebox<{ face: Drift }> = async (app, options) => {
  await app.register(driftListRoutes, options);
};

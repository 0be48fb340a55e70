// The facility-status face's routes (SPEC §4.1), one plugin per resource. They belong to the PMS
// API, whose compatibility rules (src/http/lenient.ts: JSON also as application/json-patch+json,
// form bodies, an empty body as no body) hold "as for the rest of this face": app.ts binds these
// plugins to the face and hands them to access control's routes plugin, which registers them in its
// scope in the order of the API document — the PMS's routes after the facilities, the operator's
// action groups and maintenance windows last.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FacilityStatus } from '../index.ts';
import { actionGroupRoutes } from './action-groups.ts';
import { remoteActionRoutes } from './remote-actions.ts';
import { statusRoutes } from './status.ts';
import { switchRoutes } from './switches.ts';

export { adminActionGroupRoutes } from './admin-action-groups.ts';
export { adminMaintenanceWindowRoutes } from './admin-maintenance-windows.ts';

/** A PMS's (and an operator's) status reads and remote actions under /facilities. */
export const facilityStatusRoutes: FastifyPluginAsyncTypebox<{ face: FacilityStatus }> = async (app, options) => {
  await app.register(statusRoutes, options);
  await app.register(switchRoutes, options);
  await app.register(actionGroupRoutes, options);
  await app.register(remoteActionRoutes, options);
};

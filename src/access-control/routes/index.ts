// The access-control face (/facilities): the one plugin app.ts registers. What its routes share is
// set here, for all of them: the lenient bodies of SPEC §4 (src/http/lenient.ts: JSON also as
// application/json-patch+json, form-encoded bodies, an empty body as no body, integers and booleans
// also as strings, accessCode also as a number), and a bad accessCode named by its rule in words.
// Lists are plain JSON arrays, as PMS integrations of such APIs expect; an `api-version: 2.0` header
// is accepted on every call (and not required). SPEC §4.
//
// The PMS API is served by more faces than this one: facility status (SPEC §4.1: "the same …
// compatibility rules as the rest of this face"), the command queue (the commands list) and drift
// (a facility's drifts). app.ts binds their route plugins to their faces
// and hands them in (`sharing`); they are registered here, in this scope, in the order of the API
// document. This face imports none of them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { acceptLenientBodies, documentIncumbentFieldMembers, incumbentFieldMembers } from '../../http/lenient.ts';
import { handleError, sendProblem } from '../../http/problem.ts';
import type { AccessControl } from '../index.ts';
import { ACCESS_CODE_RULE } from '../rules.ts';
import { accessProfileRoutes } from './access-profiles.ts';
import { codeReadRoutes } from './code-reads.ts';
import { facilityRoutes } from './facilities.ts';
import { timeGroupRoutes } from './time-groups.ts';
import { unitRoutes } from './units.ts';
import { visitorRoutes } from './visitors.ts';

export interface AccessControlRoutesOptions {
  face: AccessControl;
  /** Other faces' routes of the PMS API, each bound to its face (app.ts), registered in this scope. */
  sharing: {
    /** Facility status: the status reads and remote actions (after the facilities). */
    facilityStatus: FastifyPluginAsync;
    /** The command queue: the PMS's reads of a facility's commands (after the access profiles). */
    commands: FastifyPluginAsync;
    /** Drift: the PMS's read of a facility's drifts (after the commands). */
    drift: FastifyPluginAsync;
    /** Facility status: the operator's action groups (last). */
    adminActionGroups: FastifyPluginAsync;
  };
}

export const accessControlRoutes: FastifyPluginAsyncTypebox<AccessControlRoutesOptions> = async (
  app,
  { face, sharing },
) => {
  acceptLenientBodies(app);
  const options = { face };

  // The code's rule in words, instead of the schema's pattern; and a 400's bad fields also named
  // the incumbent's way, as members of the body (`"UnitNumber": [...]`, http/lenient.ts).
  app.setErrorHandler((error, request, reply: FastifyReply) => {
    const normalized = handleError(error, request);
    if (normalized.code === 'VALIDATION_FAILED') {
      normalized.errors = normalized.errors.map((e) =>
        e.path === 'accessCode' ? { path: e.path, message: ACCESS_CODE_RULE } : e,
      );
    }
    return sendProblem(reply, normalized, normalized.status === 400 ? incumbentFieldMembers(normalized.errors) : {});
  });
  documentIncumbentFieldMembers(app);

  // In the order of the API document.
  await app.register(facilityRoutes, options);
  await app.register(sharing.facilityStatus);
  await app.register(unitRoutes, options);
  await app.register(visitorRoutes, options);
  await app.register(timeGroupRoutes, options);
  await app.register(accessProfileRoutes, options);
  await app.register(sharing.commands);
  await app.register(sharing.drift);
  await app.register(codeReadRoutes, options);
  await app.register(sharing.adminActionGroups);
};

// The access-event face (/gatewayevents), v3.0, and the legacy versions.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../services.ts';

/** v3.0 routes (registered in the v3.0 document's scope). */
export const eventRoutes: FastifyPluginAsyncTypebox<{ services: Services }> = async () => {};
/** v2.0 legacy routes (registered in the v2.0 document's scope). */
export const eventRoutesV2: FastifyPluginAsyncTypebox<{ services: Services }> = async () => {};
/** v1.0 legacy routes (registered in the v1.0 document's scope). */
export const eventRoutesV1: FastifyPluginAsyncTypebox<{ services: Services }> = async () => {};

// The tenancy face's admin routes (scope admin: an operator application's client_credentials
// token): the same operations as `gatehouse admin …`; secrets appear once, in the 201 answer.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Tenancy } from '../index.ts';
import { accountKeyRoutes } from './account-keys.ts';
import { accountRoutes } from './accounts.ts';
import { applicationRoutes } from './applications.ts';
import { facilityRoutes } from './facilities.ts';
import { gatewayCredentialRoutes } from './gateways.ts';

export const tenancyRoutes: FastifyPluginAsyncTypebox<{ face: Tenancy }> = async (app, options) => {
  for (const routes of [accountRoutes, facilityRoutes, applicationRoutes, accountKeyRoutes, gatewayCredentialRoutes]) {
    await app.register(routes, options);
  }
};

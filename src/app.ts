// buildApp(services): the fastify instance with every face registered. Thin: faces own their
// routes; shared mechanisms (errors, validation, request ids, access declarations, docs,
// metrics) are wired here once.
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import { registerGuard } from './auth/guard.ts';
import { authRoutes } from './auth/routes.ts';
import { tenancyAdminRoutes } from './tenancy/routes.ts';
import { accessControlRoutes } from './access-control/routes.ts';
import { auctionRoutes } from './auctions/routes.ts';
import { consoleRoutes } from './console/routes.ts';
import { eventRoutes, eventRoutesV1, eventRoutesV2 } from './events/routes.ts';
import { gatewayRoutes } from './gateway/routes.ts';
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from './http/app-type.ts';
import { requireAccessDeclarations } from './http/access.ts';
import { API_VERSIONS, registerApiDocument, registerDocumentRoutes, registerSwaggerUi, type ApiVersion } from './http/docs.ts';
import { registerRequestMetrics } from './http/metrics.ts';
import { registerProblemHandling } from './http/problem.ts';
import { rateLimitStoreOptions } from './http/rate-limit.ts';
import { CORRELATION_HEADER, requestIdFor } from './http/request-id.ts';
import { registerValidation } from './http/validation.ts';
import { loggableUrl } from './logger.ts';
import { opsRoutes } from './ops/routes.ts';
import type { Services } from './services.ts';

export async function buildApp(services: Services): Promise<App> {
  const { config } = services;
  const app = Fastify({
    loggerInstance: services.logger as FastifyBaseLogger,
    // One log line per request, written by the onResponse hook below (no headers, no bodies).
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestIdFor,
    bodyLimit: config.bodyLimitBytes,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    ajv: { customOptions: { allErrors: true } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  requireAccessDeclarations(app);
  registerValidation(app);
  registerProblemHandling(app);
  registerRequestMetrics(app, services.metrics);
  await app.register(formbody);
  registerGuard(app, services.tokens, services.database.db);
  // RateLimit-* headers on every routed response; the caller is the token's credential, else the address.
  await app.register(rateLimit, {
    global: true,
    hook: 'preHandler',
    max: config.rateLimitPerMinute,
    timeWindow: 60_000,
    enableDraftSpec: true,
    ...rateLimitStoreOptions(services.sharedState),
    keyGenerator: (request) => (request.principal ? `${request.principal.kind}:${request.principal.credentialId}` : request.ip),
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header(CORRELATION_HEADER, request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        url: loggableUrl(request.url),
        route: request.routeOptions.url,
        statusCode: reply.statusCode,
        responseTimeMs: Math.round(reply.elapsedTime * 10) / 10,
        remoteAddress: request.ip,
      },
      'request',
    );
  });

  const scopes = {} as Record<ApiVersion, App>;
  for (const version of API_VERSIONS) {
    await app.register(async (scope) => {
      await registerApiDocument(scope, version);
      scopes[version] = scope;
      if (version === '3.0') {
        await registerSwaggerUi(scope);
        await scope.register(opsRoutes, { services });
        await scope.register(authRoutes, { services });
        await scope.register(tenancyAdminRoutes, { services });
        await scope.register(auctionRoutes, { services });
        await scope.register(accessControlRoutes, { services });
        await scope.register(gatewayRoutes, { services });
        await scope.register(eventRoutes, { services });
        await scope.register(consoleRoutes, { services });
      } else if (version === '2.0') {
        await scope.register(eventRoutesV2, { services });
      } else {
        await scope.register(eventRoutesV1, { services });
      }
    });
  }
  registerDocumentRoutes(app, scopes);
  return app;
}

// buildApp(services): the fastify instance with every face registered. Thin: faces own their
// routes; shared mechanisms (errors, validation, request ids, access declarations, docs,
// metrics) are wired here once.
import rateLimit from '@fastify/rate-limit';
import { registerGuard } from './auth/index.ts';
import { authRoutes } from './auth/routes/index.ts';
import { tenancyRoutes } from './tenancy/routes/index.ts';
import { accessControlRoutes } from './access-control/routes/index.ts';
import {
  adminActionGroupRoutes,
  adminMaintenanceWindowRoutes,
  facilityStatusRoutes,
} from './facility-status/routes/index.ts';
import { auctionRoutes, mediaRoutes } from './auctions/routes/index.ts';
import { commandRoutes } from './commands/routes/index.ts';
import { supportRoutes } from './support/routes/index.ts';
import { consoleRoutes } from './console/routes/index.ts';
import { pushRoutes } from './push/routes/index.ts';
import { sandboxFaceRoutes } from './sandbox/routes/index.ts';
import { eventRoutes, eventRoutesV1, eventRoutesV2 } from './events/routes/index.ts';
import { driftRoutes } from './drift/routes/index.ts';
import { gatewayRoutes } from './gateway/routes/index.ts';
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from './http/app-type.ts';
import { requireAccessDeclarations } from './http/access.ts';
import {
  API_VERSIONS,
  registerApiDocument,
  registerDocumentRoutes,
  registerSwaggerUi,
  type ApiVersion,
} from './http/docs.ts';
import { corsHeadersWithoutHooks, registerCors } from './http/cors.ts';
import { registerBodyDeadline, registerFormBodies, registerJsonBodies } from './http/bodies.ts';
import { clientErrorHandler } from './http/client-errors.ts';
import { registerRequestDeadline } from './http/deadline.ts';
import { registerRequestMetrics } from './http/metrics.ts';
import { MAX_PATH_PARAMETER_LENGTH } from './http/errors.ts';
import { registerProblemHandling, renderError, type FaceErrorRenderer } from './http/problem.ts';
import { rateLimitStoreOptions } from './http/rate-limit.ts';
import { CORRELATION_HEADER, requestIdFor } from './http/request-id.ts';
import { lazySerializers } from './http/serialization.ts';
import { registerValidation } from './http/validation.ts';
import { loggableUrl } from './logger.ts';
import { metricsSource } from './ops/index.ts';
import { opsRoutes } from './ops/routes/index.ts';
import type { Services } from './services.ts';
import { auctionSettings } from './auctions/index.ts';
import { eventSettings } from './events/index.ts';
import { serviceUrl } from './config.ts';

/** The port the app listens on; null before it listens (a document built by app.inject). */
const listeningPort = (app: App): number | null => {
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : null;
};

export interface AppOptions {
  /** Whether the instance is shutting down (src/server.ts): /availability answers 503 meanwhile. */
  draining?: () => boolean;
}

export async function buildApp(services: Services, options: AppOptions = {}): Promise<App> {
  const { config } = services;
  const errorRenderers: FaceErrorRenderer[] = [];
  const app = Fastify({
    loggerInstance: services.logger as FastifyBaseLogger,
    // One log line per request, written by the onResponse hook below (no headers, no bodies).
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestIdFor,
    // TRUST_PROXY: request.ip (the per-address limits, the request log) is the client X-Forwarded-For
    // names when the connection comes from a listed proxy, else the connection's peer; the forwarded
    // protocol and host are believed from those proxies only (nothing builds URLs from them: PUBLIC_URL).
    trustProxy: config.trustProxy.length > 0 ? config.trustProxy : false,
    bodyLimit: config.bodyLimitBytes,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    // Errors of the router itself (a bad percent-encoding, an over-long path parameter), in the face's
    // shape, and readable by a browser (no hook runs for them, the CORS hook included).
    frameworkErrors: (error, request, reply) =>
      renderError(
        errorRenderers,
        error,
        request,
        reply.headers(corsHeadersWithoutHooks(config.corsOrigins, request.headers.origin)),
      ),
    // What node refuses before routing (headers over 16 KiB, not HTTP), in the face's shape too.
    clientErrorHandler: clientErrorHandler(errorRenderers, services.logger as FastifyBaseLogger),
    ajv: { customOptions: { allErrors: true } },
    schemaController: { compilersFactory: { buildSerializer: lazySerializers() } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // The request id first, so that every answer carries it, refusals by later hooks included.
  app.addHook('onRequest', async (request, reply) => {
    reply.header(CORRELATION_HEADER, request.id);
  });
  // CORS next: a preflight is answered before the guard asks for a token, and every later answer,
  // errors included, already carries the CORS headers.
  await registerCors(app, config.corsOrigins);
  requireAccessDeclarations(app, errorRenderers);
  registerValidation(app, config.bodyFieldLimit);
  registerProblemHandling(app, errorRenderers);
  registerRequestMetrics(app, services.metrics);
  registerJsonBodies(app);
  registerFormBodies(app, config.bodyFieldLimit);
  registerBodyDeadline(app, config.bodyUploadTimeoutMs);
  // Before the guard: its credential and facility reads wait on the database too.
  registerRequestDeadline(app, config.requestTimeoutMs);
  registerGuard(app, services.auth, services.tenancy);
  // RateLimit-* headers on every routed response; the caller is the token's credential, else the
  // address. It runs between the guard's authentication and its refusal (see guard.ts).
  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    max: config.rateLimitPerMinute,
    timeWindow: 60_000,
    enableDraftSpec: true,
    ...rateLimitStoreOptions(services.sharedState),
    keyGenerator: (request) =>
      request.principal ? `${request.principal.kind}:${request.principal.credentialId}` : request.ip,
  });

  // A sandbox in use is kept (its last use, written at most once a minute) and its simulated controllers run:
  // every request with its account key's token counts, not only the token's issue.
  app.addHook('preHandler', async (request) => {
    const principal = request.principal;
    if (principal?.kind === 'account' && principal.sandbox)
      services.sandboxes
        .recordUse(principal.accountId)
        .catch((error: unknown) => request.log.warn({ err: error }, 'a sandbox’s last use was not recorded'));
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

  // Each face's routes receive that face (and the few mechanisms they use), not all of the services.
  const events = { face: services.events, clock: services.clock, settings: eventSettings(config) };
  const scopes = {} as Record<ApiVersion, App>;
  for (const version of API_VERSIONS) {
    await app.register(async (scope) => {
      await registerApiDocument(scope, version, () => serviceUrl(config, listeningPort(app) ?? config.port));
      scopes[version] = scope;
      if (version === '3.0') {
        await registerSwaggerUi(scope);
        await scope.register(opsRoutes, {
          readiness: services.readiness,
          draining: options.draining ?? (() => false),
          metrics: metricsSource(services.metrics.registry),
        });
        await scope.register(authRoutes, { face: services.auth });
        await scope.register(tenancyRoutes, { face: services.tenancy });
        await scope.register(auctionRoutes, { face: services.auctions, settings: auctionSettings(config) });
        // The support room's /admin/notifications between the auction administration and /media: the
        // order the OpenAPI document has always listed them in.
        await scope.register(supportRoutes, { face: services.support });
        await scope.register(mediaRoutes, { face: services.auctions });
        // The PMS API: access control's routes and, in its scope, those of the faces that share it.
        const facilityStatus = { face: services.facilityStatus };
        const commands = { face: services.commands };
        await scope.register(accessControlRoutes, {
          face: services.accessControl,
          sharing: {
            facilityStatus: async (pms) => {
              await pms.register(facilityStatusRoutes, facilityStatus);
            },
            commands: async (pms) => {
              await pms.register(commandRoutes, commands);
            },
            drift: async (pms) => {
              await pms.register(driftRoutes, { face: services.drift });
            },
            adminActionGroups: async (pms) => {
              await pms.register(adminActionGroupRoutes, facilityStatus);
              await pms.register(adminMaintenanceWindowRoutes, facilityStatus);
            },
          },
        });
        await scope.register(gatewayRoutes, {
          events: services.events,
          commands: services.commands,
          drift: services.drift,
        });
        await scope.register(eventRoutes, events);
        await scope.register(pushRoutes, { face: services.push });
        await scope.register(sandboxFaceRoutes, { face: services.sandboxes, controllers: services.sandboxControllers });
        await scope.register(consoleRoutes);
      } else if (version === '2.0') {
        await scope.register(eventRoutesV2, events);
      } else {
        await scope.register(eventRoutesV1, events);
      }
    });
  }
  registerDocumentRoutes(app, scopes);
  return app;
}

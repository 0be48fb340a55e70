// Start-up and graceful shutdown of the HTTP server: config → database → migrations → jobs → http.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type pino from 'pino';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import type { App } from './http/app-type.ts';
import { startServices, type Services } from './services.ts';

export interface RunningServer {
  app: App;
  services: Services;
  /** Stops accepting, finishes in-flight requests, stops jobs, closes the database. */
  close(): Promise<void>;
}

export async function startServer(config: Config, logger: pino.Logger): Promise<RunningServer> {
  const services = await startServices(config, logger, { role: 'owner', command: 'serve', runJobs: true });
  let app: App;
  // Connections that have not carried a request yet: fastify's close ends idle keep-alive
  // connections, but one that was opened and never used would hold shutdown until its timeout.
  const unused = new Set<Socket>();
  try {
    app = await buildApp(services);
    app.server.on('connection', (socket: Socket) => {
      unused.add(socket);
      socket.once('close', () => unused.delete(socket));
    });
    app.server.on('request', (request: IncomingMessage) => unused.delete(request.socket));
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await services.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ port, database: services.database.kind, location: services.database.location }, 'gatehouse is serving');
  let closing: Promise<void> | null = null;
  return {
    app,
    services,
    close() {
      closing ??= (async () => {
        const closed = app.close();
        for (const socket of unused) socket.destroy();
        await closed;
        await services.close();
      })();
      return closing;
    },
  };
}

/** SIGTERM/SIGINT: a graceful close, bounded in time; a second signal exits at once. */
export function closeOnSignals(server: RunningServer, logger: pino.Logger, timeoutSeconds: number): void {
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error({ timeoutSeconds }, 'shutdown took too long: exiting');
      process.exit(1);
    }, timeoutSeconds * 1000);
    timer.unref();
    server.close().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

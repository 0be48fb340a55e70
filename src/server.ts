// Start-up and graceful shutdown of the HTTP server: config → database → migrations → faces → jobs →
// listen, with the HTTP app built while the database opens (its routes bound to the faces later).
import type { IncomingMessage } from 'node:http';
import net, { type Socket } from 'node:net';
import type pino from 'pino';
import { serviceUrl, type Config } from './config.ts';
import { openDatabase } from './db/database.ts';
import type { App } from './http/app-type.ts';
import type { Services } from './services.ts';

export interface RunningServer {
  app: App;
  services: Services;
  /** What the "gatehouse is serving" line says: port, database, location, code, url, ready. */
  serving: ServingFields;
  /**
   * A graceful shutdown's first step: /availability answers 503 from now on, so that a load balancer
   * takes the instance out, while everything else is served as before (closeOnSignals waits
   * SHUTDOWN_DRAIN_DELAY_SECONDS before it closes).
   */
  beginDraining(): void;
  /**
   * Stops accepting, answers the waiting long polls (no commands), ends the live streams (with a retry
   * hint), finishes in-flight requests, stops jobs, closes the database. /availability answers 503.
   */
  close(): Promise<void>;
}

export interface StartServerOptions {
  /**
   * Called with the running server before "gatehouse is serving" is logged: signal handlers set
   * here are in place when a supervisor that waits for that line sends SIGTERM (set after it, a
   * SIGTERM sent at once killed the process without a graceful shutdown).
   */
  beforeServing?: (server: RunningServer) => void;
  /**
   * A worker of a cluster (cluster.ts): the primary checked the port before forking (a worker's own
   * probe would find it held by its siblings), and says "gatehouse is serving" once every worker
   * does; a worker's line says "worker is serving".
   */
  worker?: boolean;
}

export interface ServingFields {
  port: number;
  database: string;
  location: string;
  code: 'src' | 'dist';
  url: string;
  ready: string;
}

/** The HTTP port cannot be had: in use, privileged, or HOST is not this machine's. */
export class PortUnavailableError extends Error {
  override name = 'PortUnavailableError';
}

/**
 * The one-line refusal, with the fix, for a failed bind of HOST:PORT (null if not a bind failure).
 * `setting`: where the port was chosen (PORT, or the demo's --port).
 */
export function portRefusal(error: unknown, host: string, port: number, setting = 'PORT'): PortUnavailableError | null {
  const any = setting === 'PORT' ? 'PORT=0' : `${setting} 0`;
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new PortUnavailableError(`port ${port} is in use: set ${setting} (or ${any} for any free port)`);
    case 'EACCES':
      return new PortUnavailableError(
        `port ${port} needs privileges this process does not have: set ${setting} to 1024 or above (or ${any} for any free port)`,
      );
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new PortUnavailableError(
        `HOST ${host} is not an address of this machine: set HOST (0.0.0.0 for all, 127.0.0.1 for this machine only)`,
      );
    default:
      return null;
  }
}

/**
 * Refuses, before anything is created or migrated, a HOST:PORT the server could not listen on.
 * The real listen comes only after the database is open and migrated (the app needs its
 * services), so this binds the same address for a moment and releases it. Another process may
 * take the port in between; then the real listen fails with the same refusal (startServer).
 * PORT=0 (any free port) cannot be in use and is not checked.
 */
export async function checkPortAvailable(host: string, port: number, setting = 'PORT'): Promise<void> {
  if (port === 0) return;
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (error) => reject(portRefusal(error, host, port, setting) ?? error));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

let rejectionsHeard = false;

/**
 * A promise rejected with no one awaiting it — a statement's failure that some path forgot to
 * catch, e.g. a connection not found in time while the fleet saturates the database (seen once in
 * the 10,000-facility benchmark, its origin not found) — is logged as an error, and the service goes
 * on serving: Node's default would end the process, and with it every controller's connection, for
 * one lost answer. (An exception thrown synchronously still ends it: its state cannot be trusted.)
 */
function logUnheardRejections(logger: pino.Logger): void {
  if (rejectionsHeard) return;
  rejectionsHeard = true;
  process.on('unhandledRejection', (reason) => {
    logger.error({ err: reason }, 'a promise failed with no one to hear it (a bug: please report this line)');
  });
}

export async function startServer(
  config: Config,
  logger: pino.Logger,
  options: StartServerOptions = {},
): Promise<RunningServer> {
  if (!options.worker) await checkPortAvailable(config.host, config.port);
  logUnheardRejections(logger);
  // Start-up overlaps what does not depend on each other: the database opens (the embedded one on
  // its own thread) while the service's modules load and the HTTP app is built, its routes bound to
  // the faces once they exist (late-bound.ts); the app listens while the job queue starts.
  const opening = openDatabase(config, { role: 'owner', command: 'serve' });
  opening.catch(() => {}); // its failure is thrown where it is awaited (startServices), not as unhandled
  const modules = Promise.all([
    import('./services.ts'),
    import('./app.ts'),
    import('./late-bound.ts'),
    import('./http/metrics.ts'),
  ]);
  const [{ startServices }, { buildApp }, { servicesBoundLater }, { Metrics }] = await modules.catch(
    async (error: unknown) => {
      await opening.then((database) => database.close()).catch(() => {});
      throw error;
    },
  );
  // From the first step of a shutdown on: /availability answers 503 (beginDraining, close).
  let draining = false;
  const metrics = new Metrics();
  const late = servicesBoundLater({ config, logger, metrics });
  const building = buildApp(late.services, { draining: () => draining });
  building.catch(() => {}); // thrown where it is awaited (below), or the start failed first
  // Connections that have not carried a request yet: fastify's close ends idle keep-alive
  // connections, but one that was opened and never used would hold shutdown until its timeout.
  const unused = new Set<Socket>();
  const services = await startServices(config, logger, {
    role: 'owner',
    command: 'serve',
    runJobs: true,
    database: opening,
    metrics,
    whileJobsStart: async (services) => {
      late.bind(services);
      const app = await building;
      app.server.on('connection', (socket: Socket) => {
        unused.add(socket);
        socket.once('close', () => unused.delete(socket));
      });
      app.server.on('request', (request: IncomingMessage) => unused.delete(request.socket));
      try {
        await app.listen({ port: config.port, host: config.host });
      } catch (error) {
        await app.close();
        throw portRefusal(error, config.host, config.port) ?? error;
      }
    },
  }).catch(async (error: unknown) => {
    // The start failed (the app may have been built, or listened while the job queue failed): it closes too.
    await building.then((built) => built.close()).catch(() => {});
    throw error;
  });
  const served = await building;
  const address = served.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;

  let closing: Promise<void> | null = null;
  const url = serviceUrl(config, port);
  // The sandbox facilities' hosted controllers this instance runs reach it at its own address.
  services.sandboxControllers.listening(config.host, port);
  const serving: ServingFields = {
    port,
    database: services.database.kind,
    location: services.database.location,
    // The plain JavaScript built at install (dist/) or the TypeScript sources (src/, through tsx).
    code: import.meta.url.endsWith('.ts') ? 'src' : 'dist',
    url,
    ready: `open ${url}/swagger (API reference), ${url}/console (support console)`,
  };
  const running: RunningServer = {
    app: served,
    services,
    serving,
    beginDraining() {
      draining = true;
      // Its hosted controllers stop and are released at once: another instance runs them meanwhile.
      void services.sandboxControllers.close();
    },
    close() {
      draining = true;
      closing ??= (async () => {
        await services.sandboxControllers.close();
        const closed = served.close();
        for (const socket of unused) socket.destroy();
        await closed;
        await services.close();
      })();
      return closing;
    },
  };
  options.beforeServing?.(running);
  logger.info(serving, options.worker ? 'worker is serving' : 'gatehouse is serving');
  return running;
}

/**
 * The graceful close, bounded in time, then the exit: 0 when it closed cleanly, 1 when it failed
 * or took longer than `timeoutSeconds`. Returns what begins it, once (a later call does nothing);
 * `why` is logged with "shutting down".
 *
 * Behind a load balancer the close waits SHUTDOWN_DRAIN_DELAY_SECONDS first (Kubernetes' "sleep
 * before close"): the instance answers /availability 503 at once but goes on serving everything
 * else, accepting new connections too, until the balancer's health checks have taken it out. Only
 * then does it stop listening, answer its long polls, end its streams and finish in-flight work:
 * a request the balancer sent just before it noticed is served, not refused. The delay counts in
 * `timeoutSeconds` (config.ts refuses a delay as long).
 */
function exitGracefully(
  server: RunningServer,
  logger: pino.Logger,
  timeoutSeconds: number,
): (why: Record<string, unknown>) => void {
  let begun = false;
  const drainDelaySeconds = server.services.config.shutdownDrainDelaySeconds;
  return (why) => {
    if (begun) return;
    begun = true;
    server.beginDraining();
    logger.info({ ...why, drainDelaySeconds }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error({ timeoutSeconds }, 'shutdown took too long: exiting');
      process.exit(1);
    }, timeoutSeconds * 1000);
    timer.unref();
    const drained =
      drainDelaySeconds > 0
        ? new Promise<void>((resolve) => setTimeout(resolve, drainDelaySeconds * 1000)).then(() =>
            logger.info({ drainDelaySeconds }, 'drain delay over: closing'),
          )
        : Promise.resolve();
    drained
      .then(() => server.close())
      .then(
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
}

/**
 * SIGTERM/SIGINT (or the `signals` given): a graceful close, bounded in time; a second signal exits
 * at once. Returns what begins the close without a signal (a cluster worker told by its primary):
 * a signal after it still counts as the first.
 */
export function closeOnSignals(
  server: RunningServer,
  logger: pino.Logger,
  timeoutSeconds: number,
  signals: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT'],
): (why: Record<string, unknown>) => void {
  const begin = exitGracefully(server, logger, timeoutSeconds);
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    signalled = true;
    begin({ signal });
  };
  for (const signal of signals) process.on(signal, onSignal);
  return begin;
}

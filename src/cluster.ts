// One process per core behind one port: `WORKERS` (or `gatehouse serve --workers`) above 1, on
// PostgreSQL only. node's cluster: the primary serves no request; it checks the port, starts the
// workers, replaces one that dies, and stops them all on SIGTERM/SIGINT. Each worker is the
// single-process server of server.ts, unchanged: its own pool, job workers, listeners, graceful close.
//
// Decisions (docs/OPERATIONS.md, "One process per core"):
// - The first worker starts alone; the others once it serves. It migrates (migrations run under
//   pg_advisory_lock, so workers starting together would be safe, but this way a refusal comes once)
//   and makes what a data directory gets at its first start: the signing key (a file named by its
//   time and thumbprint: workers making theirs together would sign with different keys, each
//   publishing only its own) and the gate-code key (created, then written: a sibling could read it
//   empty). The others find them made. Whatever a later version makes at first start is covered too.
// - The workers share the port: the primary holds the listening socket and hands each connection to
//   the next worker in turn (cluster.SCHED_RR, node's default but on Windows). PORT=0 gives them all
//   the same port.
// - A worker that exits while the service is up is replaced, after 1 s, doubling (up to 30 s) while
//   the workers it replaces lived less than a minute: a worker that cannot start is not forked in a
//   tight loop. One that fails during the first start stops the start (exit 1); its line says why.
// - SIGTERM/SIGINT to the primary: every worker closes gracefully (its usual close) and the primary
//   exits 0 once all have exited 0, else 1; SHUTDOWN_TIMEOUT_SECONDS + 5 s after the signal it kills
//   those left and exits 1. A second signal kills them at once. Ctrl-C reaches every process of the
//   group: workers leave SIGINT to the primary, so one Ctrl-C is one graceful stop.
// - Logs: every line carries the process's `pid`, a worker's its `worker` id too.
// - /metrics: whichever worker takes the scrape answers with every worker's figures, summed by the
//   primary (src/ops/cluster-metrics.ts).
import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config.ts';
import { answerClusterMetrics } from './ops/index.ts';
import type { Logger } from './logger.ts';
import type { ServingFields } from './server.ts';

/** The primary asks a worker to close gracefully. */
const SHUTDOWN = 'gatehouse:shutdown';
/** A worker tells the primary it serves. */
const SERVING = 'gatehouse:serving';

/** The first replacement waits this long; each next one of a worker that lived less than STABLE_MS twice that. */
const REPLACE_AFTER_MS = 1_000;
const REPLACE_AFTER_MAX_MS = 30_000;
const STABLE_MS = 60_000;
/** The primary's own bound on a shutdown, beyond the workers' SHUTDOWN_TIMEOUT_SECONDS. */
const SHUTDOWN_GRACE_MS = 5_000;

interface ServingMessage {
  type: typeof SERVING;
  serving: ServingFields;
}

const isMessage = (message: unknown, type: string): boolean =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;

/** `gatehouse serve` with more than one worker: the primary's part or a worker's, by which this process is. */
export async function serveCluster(config: Config, logger: Logger): Promise<void> {
  if (cluster.isWorker) await serveWorker(config, logger);
  else await servePrimary(config, logger);
}

async function serveWorker(config: Config, baseLogger: Logger): Promise<void> {
  const logger = baseLogger.child({ pid: process.pid, worker: cluster.worker?.id });
  // Ctrl-C signals the whole process group; the primary relays it to every worker as SHUTDOWN.
  process.on('SIGINT', () => {});
  // What begins the graceful close, once the server can close; whether the primary asked for it.
  const close: { begin: ((why: Record<string, unknown>) => void) | null; asked: boolean } = {
    begin: null,
    asked: false,
  };
  process.on('message', (message: unknown) => {
    if (!isMessage(message, SHUTDOWN)) return;
    close.asked = true;
    close.begin?.({ by: 'primary' });
  });
  try {
    const { closeOnSignals, startServer } = await import('./server.ts');
    const running = await startServer(config, logger, {
      worker: true,
      beforeServing: (server) => {
        close.begin = closeOnSignals(server, logger, config.shutdownTimeoutSeconds, ['SIGTERM']);
      },
    });
    process.send?.({ type: SERVING, serving: running.serving } satisfies ServingMessage);
    // Asked to stop while it was starting: it stops now that it can close gracefully.
    if (close.asked) close.begin?.({ by: 'primary' });
  } catch (error) {
    // The IPC channel would keep a worker that failed to start alive: it exits once main has said why.
    process.channel?.unref();
    throw error;
  }
}

/** The primary: forks, watches and stops the workers. */
class Primary {
  /** Workers alive, with when each began serving (null: still starting). */
  private readonly alive = new Map<Worker, { servedAt: number | null }>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Replacements in a row of workers that lived less than STABLE_MS. */
  private quickExits = 0;
  private up = false;
  private stopping: Promise<void> | null = null;
  /** Workers that exited other than 0 after they were asked to stop. */
  private failedStops = 0;

  constructor(
    private readonly config: Config,
    private readonly logger: Logger,
  ) {}

  /** Starts the workers, the first alone: what the first says it serves, or null when one failed to start (the others are stopped) or a signal came. */
  async start(): Promise<ServingFields | null> {
    const count = this.config.workers;
    this.logger.info({ workers: count }, 'starting workers');
    try {
      const first = await this.fork();
      if (this.stopping) return null;
      await Promise.all(Array.from({ length: count - 1 }, () => this.fork()));
      this.up = true;
      return first;
    } catch (error) {
      if (!this.stopping) {
        this.logger.error(error as object, 'a worker failed to start: stopping the others');
        await this.stop();
      }
      return null;
    }
  }

  get pids(): number[] {
    return [...this.alive.keys()].map((w) => w.process.pid ?? 0);
  }

  /** Forks a worker: resolves when it serves, rejects when it exits before. */
  private fork(): Promise<ServingFields> {
    const worker = cluster.fork();
    const state = { servedAt: null as number | null };
    this.alive.set(worker, state);
    return new Promise((resolve, reject) => {
      worker.on('message', (message: unknown) => {
        if (!isMessage(message, SERVING)) return;
        state.servedAt = Date.now();
        // Asked to stop while it started: it may not have been listening yet, so it is asked again.
        if (this.stopping) worker.send({ type: SHUTDOWN });
        resolve((message as ServingMessage).serving);
      });
      worker.once('exit', (code: number | null, signal: string | null) => {
        this.alive.delete(worker);
        const exit = { worker: worker.id, workerPid: worker.process.pid, code, signal };
        if (state.servedAt === null) reject(exit);
        this.exited(exit, state.servedAt);
      });
    });
  }

  private exited(exit: { worker: number; code: number | null; signal: string | null }, servedAt: number | null): void {
    if (this.stopping) {
      if (exit.code !== 0) this.failedStops++;
      return;
    }
    if (!this.up) return; // the start fails (start())
    const lived = servedAt === null ? 0 : Date.now() - servedAt;
    this.quickExits = lived >= STABLE_MS ? 0 : this.quickExits + 1;
    const delayMs = Math.min(REPLACE_AFTER_MAX_MS, REPLACE_AFTER_MS * 2 ** Math.max(0, this.quickExits - 1));
    this.logger.error({ ...exit, livedMs: lived, replaceInMs: delayMs }, 'a worker exited: replacing it');
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.stopping) return;
      this.fork().then(
        () => this.logger.info({ workers: this.alive.size, pids: this.pids }, 'worker replaced'),
        () => {}, // its exit is logged and replaced in turn, later (exited())
      );
    }, delayMs);
    this.timers.add(timer);
  }

  /** Asks every worker to close gracefully; resolves when all have exited. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const timer of this.timers) clearTimeout(timer);
      this.timers.clear();
      const exits = [...this.alive.keys()].map(
        (worker) =>
          new Promise<void>((resolve) => (worker.isDead() ? resolve() : worker.once('exit', () => resolve()))),
      );
      for (const worker of this.alive.keys()) if (worker.isConnected()) worker.send({ type: SHUTDOWN });
      await Promise.all(exits);
    })();
    return this.stopping;
  }

  /** Whether every worker exited 0 when asked to stop. */
  get stoppedCleanly(): boolean {
    return this.failedStops === 0;
  }

  kill(): void {
    for (const worker of this.alive.keys()) worker.process.kill('SIGKILL');
  }
}

async function servePrimary(config: Config, baseLogger: Logger): Promise<void> {
  const logger = baseLogger.child({ pid: process.pid });
  const { checkPortAvailable } = await import('./server.ts');
  await checkPortAvailable(config.host, config.port);
  const primary = new Primary(config, logger);
  answerClusterMetrics();

  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: killing the workers, exiting now');
      primary.kill();
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal, workers: primary.pids.length }, 'shutting down');
    const timeoutMs = config.shutdownTimeoutSeconds * 1000 + SHUTDOWN_GRACE_MS;
    const timer = setTimeout(() => {
      logger.error({ timeoutMs }, 'shutdown took too long: killing the workers left, exiting');
      primary.kill();
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    void primary.stop().then(() => {
      logger.info({ cleanly: primary.stoppedCleanly }, 'stopped');
      process.exit(primary.stoppedCleanly ? 0 : 1);
    });
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  const serving = await primary.start();
  if (serving === null) {
    // The worker's own line said why on stderr; the primary's is in the log.
    process.exitCode = 1;
    return;
  }
  if (signalled) return;
  logger.info({ ...serving, workers: config.workers, pids: primary.pids }, 'gatehouse is serving');
}

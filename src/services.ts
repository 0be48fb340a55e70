// The composition root: every long-lived part of the service is built here, once, in order —
// database → migrations → job queue (it can send at once) → each face's create<Face>() → the
// queue's workers with the faces' job definitions — and closed in reverse. The HTTP app (app.ts)
// is built on top of them.
import type pino from 'pino';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/database.ts';
import { MigrationMismatchError, migrate, migrationsApplied, permissionRefusal } from './db/migrate.ts';
import { installJobSchema, JobQueue } from './jobs/queue.ts';
import { Metrics } from './http/metrics.ts';
import { Gauge } from 'prom-client';
import { createAccessControl, openAccessCodeVault, type AccessControl } from './access-control/index.ts';
import { createAuth, type Auth } from './auth/index.ts';
import { createAuctions, type Auctions } from './auctions/index.ts';
import { createCommands, type Commands } from './commands/index.ts';
import { createEvents, type Events } from './events/index.ts';
import { createDrift, type Drift } from './drift/index.ts';
import { createFacilityStatus, type FacilityStatus } from './facility-status/index.ts';
import { createPush, type Push } from './push/index.ts';
import { createSandboxControllers, createSandboxes, type SandboxControllers, type Sandboxes } from './sandbox/index.ts';
import { createSupport, type Support } from './support/index.ts';
import { SharedState, type SharedStateStatus } from './shared-state.ts';
import { createTenancy, type Tenancy } from './tenancy/index.ts';

export interface Services {
  config: Config;
  logger: pino.Logger;
  database: Database;
  jobs: JobQueue;
  metrics: Metrics;
  clock: Clock;
  auth: Auth;
  tenancy: Tenancy;
  /** Shared state for several instances (rate limits), when REDIS_URL is set. */
  sharedState: SharedState;
  events: Events;
  commands: Commands;
  accessControl: AccessControl;
  facilityStatus: FacilityStatus;
  /** Drift between what the controllers hold and what the PMS asked for (src/drift/). */
  drift: Drift;
  auctions: Auctions;
  push: Push;
  /** Support notifications: raised by the faces, read by the console (src/support/). */
  support: Support;
  /** Integrators' sandboxes: accounts of their own, owned by a production account (src/sandbox/). */
  sandboxes: Sandboxes;
  /** The sandbox facilities' hosted controllers this instance runs (src/sandbox/controllers/). */
  sandboxControllers: SandboxControllers;
  readiness(): Promise<{
    database: boolean;
    migrations: boolean;
    jobs: boolean | 'starting';
    redis: SharedStateStatus;
  }>;
  close(): Promise<void>;
}

export interface StartOptions {
  role: 'owner' | 'client';
  command: string;
  /** Start the job workers and schedules (the server does; one-shot commands need not). */
  runJobs: boolean;
  /** The time as the parts read it (tests move it instead of waiting); the system's by default. */
  clock?: Clock;
  /** The database, already being opened by the caller (the server opens it before loading the rest). */
  database?: Promise<Database>;
  /**
   * Runs while the job queue starts (the server builds its HTTP app meanwhile); a failure of
   * either closes what was opened.
   */
  whileJobsStart?: (services: Services) => Promise<void>;
  /** The metrics' registry, already made by the caller (the server's HTTP app is built before the services). */
  metrics?: Metrics;
}

export async function startServices(config: Config, logger: pino.Logger, options: StartOptions): Promise<Services> {
  // What is open so far, closed in reverse by close() or by a failure part-way.
  const opened: (() => Promise<void> | void)[] = [];
  const closeOpened = async () => {
    for (const close of opened.splice(0).reverse()) await close();
  };
  try {
    const database = await (options.database ?? openDatabase(config, { role: options.role, command: options.command }));
    opened.push(() => database.close());
    // A lost connection fails only its own statements (503 with Retry-After) and is replaced.
    opened.push(
      database.onConnectionLost((error) =>
        logger.warn({ err: error }, 'a database connection was lost; its statements failed and the pool replaces it'),
      ),
    );
    await migrate(database.pool).then((result) => logMigrations(result, logger));

    const metrics = options.metrics ?? new Metrics();
    const sharedState = await SharedState.open(config.redisUrl, logger, {
      commandTimeoutMs: config.redisCommandTimeoutMs,
      registry: metrics.registry,
    });
    opened.push(() => sharedState.close());
    // A healthy Redis counts from the first request; an absent one never delays the start.
    await sharedState.connected(1000);
    const clock = options.clock ?? systemClock;
    // A sandbox's credential that gets a token marks the sandbox used (the sandbox face, built below:
    // tokens are issued only once the service is up).
    const auth = await createAuth({
      database,
      config,
      sharedState,
      clock,
      // The service's own hosted controllers' tokens are no use of their sandbox (part B).
      sandboxTokenIssued: async (accountId, credential) => {
        if (credential.kind === 'gateway' && (await sandboxControllers.isHostedCredential(credential.credentialId)))
          return;
        await sandboxes.recordUse(accountId);
      },
    });
    const tenancy = createTenancy(database.db);
    const jobs = new JobQueue(database.pool, logger, { supervise: options.runJobs });

    // The gate-code vault first: the command queue unseals the codes it delivers, access control
    // seals them. Then the queue, through which access control and facility status write commands;
    // a poll marks the controller heard (facility status, built just after: polls begin only once
    // the service is up).
    const vault = await openAccessCodeVault(config, database.db);
    const commands = await createCommands({
      database,
      config,
      logger,
      metrics,
      codes: vault,
      whenPolled: [(facilityId, now) => facilityStatus.controllerPolled(facilityId, now)],
    });
    opened.push(() => commands.close());
    const accessControl = createAccessControl({ database, config, sharedState, clock, vault, commands });
    const facilityStatus = createFacilityStatus({ database, logger, clock, commands });
    opened.push(() => facilityStatus.close());
    // A controller's digest compared with access control's state, healed through the command queue.
    const drift = createDrift({ database, logger, metrics, commands, controllerCopy: accessControl.controllerCopy });
    // A controller's report, in its batch's one statement: the commands it received are acknowledged,
    // and the facility's reported state is kept.
    const events = await createEvents({
      database,
      config,
      logger,
      metrics,
      clock,
      credentials: auth.credentials,
      upkeep: [commands.acknowledgeReceived, facilityStatus.controllerReported],
    });
    opened.push(() => events.close());
    // Support notifications: the faces raise them through `support.raise`, each wording its own.
    const support = createSupport({ database, config, logger, jobs });
    opened.push(() => support.close());
    const auctions = createAuctions({ database, config, logger, jobs, metrics, support });
    const push = await createPush({
      database,
      config,
      logger,
      metrics,
      jobs,
      sealer: accessControl.vault.sealerFor('webhook secret'),
      tenancy,
      // What a subscriber is told of, each read through the face that owns it.
      facts: {
        commands: commands.facts,
        facilityStatus: facilityStatus.facts,
        drift: drift.facts,
        auctions: auctions.facts,
        events: events.facts,
      },
      raise: support.raise,
    });
    opened.push(() => push.close());
    // Sandboxes: tenancy's operations bound to each creation's transaction, access control's bulk seeding.
    // Each sandbox facility's hosted controller (part B): run by the instance holding its lease.
    const sandboxControllers = createSandboxControllers({
      database,
      clock,
      logger,
      jobs,
      sealer: accessControl.vault.sealerFor('sandbox controller secret'),
      tenancyIn: createTenancy,
    });
    opened.push(() => sandboxControllers.close());
    const sandboxes = createSandboxes({
      database,
      clock,
      logger,
      tenancyIn: createTenancy,
      accessControl,
      controllers: sandboxControllers,
    });
    // An account's events (and the acknowledgements they carry) committed here or on another
    // instance: its lanes are worked at once, not at the next sweep. A lost notification (the
    // listener reconnecting) is covered by the sweep.
    const stopKicking = events.signals.onStored((accountId) => push.eventsStored(accountId));
    opened.push(stopKicking);

    async function readiness() {
      // Well inside the request deadline, so that /availability always gives its own answer.
      const checkMs = Math.min(2000, Math.floor(config.requestTimeoutMs / 2));
      const [databaseOk, migrationsOk] = await Promise.all([
        withTimeout(
          database.pool.query('select 1').then(() => true),
          checkMs,
        ),
        withTimeout(migrationsApplied(database.pool), checkMs),
      ]);
      // The queue's work lives in the database: it runs only when the database answers. While its
      // workers are being set up (just after the start) it can already send: `starting` holds nothing.
      return {
        database: databaseOk,
        migrations: migrationsOk,
        jobs: jobs.isRunning ? databaseOk : jobs.isStarting ? ('starting' as const) : false,
        redis: sharedState.status,
      };
    }
    new Gauge({
      name: 'gatehouse_ready',
      help: 'What /availability checks, 1 when it passes: database (a statement answers within 2 s), migrations, jobs.',
      labelNames: ['check'] as const,
      registers: [metrics.registry],
      // Under WORKERS, 0 when any worker's check fails (src/ops/cluster-metrics.ts).
      aggregator: 'min',
      async collect() {
        const checks = await readiness();
        for (const check of ['database', 'migrations', 'jobs'] as const)
          this.set({ check }, checks[check] === true ? 1 : 0);
      },
    });

    const services: Services = {
      config,
      logger,
      database,
      metrics,
      clock,
      auth,
      tenancy,
      sharedState,
      jobs,
      events,
      commands,
      accessControl,
      facilityStatus,
      drift,
      auctions,
      push,
      support,
      sandboxes,
      sandboxControllers,
      readiness,
      close: closeOpened,
    };
    const starting = jobs
      .start([
        ...events.jobs,
        ...auctions.jobs,
        ...support.jobs,
        ...commands.jobs,
        ...facilityStatus.jobs,
        ...drift.jobs,
        ...push.jobs,
        ...sandboxes.jobs,
        ...sandboxControllers.jobs,
      ])
      .catch((error) => {
        // pg-boss installs its schema at its start: a role that may not is told what it needs.
        throw permissionRefusal(database.pool, error) ?? error;
      })
      .then(() => {
        // The lanes are workers too: a one-shot command or a test without jobs does not work them.
        if (options.runJobs) return push.start();
      });
    opened.push(async () => {
      await starting.catch(() => {});
      await jobs.stop();
    });
    // Both settle before either failure is thrown: nothing may still be starting while it all closes.
    const settled = await Promise.allSettled([starting, options.whileJobsStart?.(services)]);
    for (const result of settled) if (result.status === 'rejected') throw result.reason;
    return services;
  } catch (error) {
    await closeOpened();
    throw error;
  }
}

/** The service's migrations and the job queue's schema: what `gatehouse migrate` and every command apply. */
export async function applyMigrations(database: Database, logger: pino.Logger): Promise<void> {
  logMigrations(await migrate(database.pool), logger);
  await installJobSchema(database.pool).catch((error) => {
    throw permissionRefusal(database.pool, error) ?? error;
  });
}

function logMigrations(result: Awaited<ReturnType<typeof migrate>>, logger: pino.Logger): void {
  if (result.applied.length > 0) logger.info({ applied: result.applied }, 'migrations applied');
  // A schema that differs from the files would fail later, query by query: refuse to start instead.
  if (result.changed.length > 0) throw new MigrationMismatchError(result.changed);
}

async function withTimeout(check: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([check.catch(() => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// The service's parts, opened in order and closed in reverse: configuration → database →
// migrations → job queue. The HTTP app (app.ts) is built on top of them.
import os from 'node:os';
import type pino from 'pino';
import { ClientDirectory } from './auth/client-directory.ts';
import { Grants } from './auth/grants.ts';
import { loadSigningKeys } from './auth/keys.ts';
import { SecretCheckLine } from './auth/secret-checks.ts';
import { TokenThrottle } from './auth/throttle.ts';
import { TokenService } from './auth/tokens.ts';
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/database.ts';
import { migrate, migrationsApplied } from './db/migrate.ts';
import { JobQueue } from './jobs/queue.ts';
import { jobDefinitions } from './jobs/registry.ts';
import { Metrics } from './http/metrics.ts';
import { SharedState, type SharedStateStatus } from './shared-state.ts';

export interface Services {
  config: Config;
  logger: pino.Logger;
  database: Database;
  jobs: JobQueue;
  metrics: Metrics;
  tokens: TokenService;
  grants: Grants;
  /** Failed token requests, per (client id, source address) and per source address. */
  tokenThrottle: TokenThrottle;
  /** Counters several instances share: in Redis when REDIS_URL is set and it is up, else in memory. */
  sharedState: SharedState;
  readiness(): Promise<{ database: boolean; migrations: boolean; jobs: boolean; redis: SharedStateStatus }>;
  close(): Promise<void>;
}

export interface StartOptions {
  role: 'owner' | 'client';
  command: string;
  /** Start the job workers and schedules (the server does; one-shot commands need not). */
  runJobs: boolean;
}

export async function startServices(config: Config, logger: pino.Logger, options: StartOptions): Promise<Services> {
  const database = await openDatabase(config, { role: options.role, command: options.command });
  try {
    const result = await migrate(database.pool);
    if (result.applied.length > 0) logger.info({ applied: result.applied }, 'migrations applied');
    if (result.changed.length > 0) logger.warn({ changed: result.changed }, 'applied migrations differ from the files in this version');
  } catch (error) {
    await database.close();
    throw error;
  }

  const metrics = new Metrics();
  const tokens = new TokenService(await loadSigningKeys(config), config);
  const sharedState = new SharedState(config.redisUrl, logger, { commandTimeoutMs: config.redisCommandTimeoutMs, registry: metrics.registry });
  // A healthy Redis counts from the first request; an absent one never delays the start.
  await sharedState.connected(1000);
  const secretChecks = SecretCheckLine.forCores(os.availableParallelism());
  const services: Services = {
    config,
    logger,
    database,
    metrics,
    tokens,
    grants: new Grants(database.db, tokens, config.refreshTokenTtlSeconds, secretChecks, new ClientDirectory(database.db)),
    tokenThrottle: TokenThrottle.create(sharedState, config.tokenFailureLimit, config.tokenFailureWindowSeconds),
    sharedState,
    jobs: undefined as unknown as JobQueue,
    async readiness() {
      const [databaseOk, migrationsOk] = await Promise.all([
        withTimeout(database.pool.query('select 1').then(() => true), 2000),
        withTimeout(migrationsApplied(database.pool), 2000),
      ]);
      return { database: databaseOk, migrations: migrationsOk, jobs: services.jobs.isRunning, redis: sharedState.status };
    },
    async close() {
      await services.jobs.stop();
      await database.close();
      sharedState.close();
    },
  };
  services.jobs = new JobQueue(database.pool, logger, options.runJobs ? jobDefinitions(services) : [], options.runJobs);
  try {
    await services.jobs.start();
  } catch (error) {
    await database.close();
    sharedState.close();
    throw error;
  }
  return services;
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

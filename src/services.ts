// The service's parts, opened in order and closed in reverse: configuration → database →
// migrations → job queue. The HTTP app (app.ts) is built on top of them.
import { Redis } from 'ioredis';
import type pino from 'pino';
import { Grants } from './auth/grants.ts';
import { loadSigningKeys } from './auth/keys.ts';
import { MemoryFailureCounter, RedisFailureCounter, type FailureCounter } from './auth/throttle.ts';
import { TokenService } from './auth/tokens.ts';
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/database.ts';
import { migrate, migrationsApplied } from './db/migrate.ts';
import { JobQueue } from './jobs/queue.ts';
import { jobDefinitions } from './jobs/registry.ts';
import { Metrics } from './http/metrics.ts';

export interface Services {
  config: Config;
  logger: pino.Logger;
  database: Database;
  jobs: JobQueue;
  metrics: Metrics;
  tokens: TokenService;
  grants: Grants;
  /** Failed token requests, per client id and per source address (10× the per-client limit). */
  tokenThrottle: { client: FailureCounter; address: FailureCounter };
  /** Shared state for several instances (rate limits), when REDIS_URL is set. */
  redis: Redis | null;
  readiness(): Promise<{ database: boolean; migrations: boolean; jobs: boolean }>;
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
  const redis = config.redisUrl ? new Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true }) : null;
  redis?.on('error', (error) => logger.warn({ err: error }, 'redis error'));
  const services: Services = {
    config,
    logger,
    database,
    metrics,
    tokens,
    grants: new Grants(database.db, tokens, config.refreshTokenTtlSeconds),
    tokenThrottle: {
      client: failureCounter(redis, 'client', config.tokenFailureLimit, config.tokenFailureWindowSeconds),
      address: failureCounter(redis, 'address', config.tokenFailureLimit * 10, config.tokenFailureWindowSeconds),
    },
    redis,
    jobs: undefined as unknown as JobQueue,
    async readiness() {
      // Well inside the request deadline, so that /availability always gives its own answer.
      const checkMs = Math.min(2000, Math.floor(config.requestTimeoutMs / 2));
      const [databaseOk, migrationsOk] = await Promise.all([
        withTimeout(database.pool.query('select 1').then(() => true), checkMs),
        withTimeout(migrationsApplied(database.pool), checkMs),
      ]);
      // The queue's work lives in the database: it runs only when the database answers.
      return { database: databaseOk, migrations: migrationsOk, jobs: services.jobs.isRunning && databaseOk };
    },
    async close() {
      await services.jobs.stop();
      await database.close();
      redis?.disconnect();
    },
  };
  services.jobs = new JobQueue(database.pool, logger, options.runJobs ? jobDefinitions(services) : [], options.runJobs);
  try {
    await services.jobs.start();
  } catch (error) {
    await database.close();
    throw error;
  }
  return services;
}

function failureCounter(redis: Redis | null, name: string, limit: number, windowSeconds: number): FailureCounter {
  return redis ? new RedisFailureCounter(redis, `${name}:`, limit, windowSeconds) : new MemoryFailureCounter(limit, windowSeconds);
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

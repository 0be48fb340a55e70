// Test harness: each test file gets its own database, copied from the template that `npm test`
// built (a PGlite data directory, or a PostgreSQL template database), and the real app on it.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before } from 'node:test';
import pg from 'pg';
import { buildApp } from '../../src/app.ts';
import type { Clock } from '../../src/clock.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { App } from '../../src/http/app-type.ts';
import { createLogger } from '../../src/logger.ts';
import { startServices, type Services } from '../../src/services.ts';

export const onPostgres = Boolean(process.env.DATABASE_URL);
export const databaseLabel = onPostgres ? 'PostgreSQL' : 'embedded';

/** Log lines written during a test, for assertions about what is (not) logged. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void) {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
  get text() {
    return this.lines.join('\n');
  }
}

export interface TestDatabase {
  /** Environment for a config or a child process that uses this database. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/** A fresh, migrated database: a copy of the template data directory, or a database made from the template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const workDir = process.env.GATEHOUSE_TEST_WORKDIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-test-'));
  const dataDir = fs.mkdtempSync(path.join(workDir, 'd-'));
  if (onPostgres) {
    const templateDb = process.env.GATEHOUSE_TEST_TEMPLATE_DB;
    if (!templateDb) throw new Error('run the suite with `npm test` (it builds the template database)');
    const name = `gh_t_${process.env.GATEHOUSE_TEST_RUN_ID}_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`create database ${name} template ${templateDb}`);
        break;
      } catch (error) {
        // Two files copying the template at the same instant: wait and try again.
        if (attempt >= 20) throw error;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
    await admin.end();
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    return {
      env: { DATABASE_URL: url.toString(), DATA_DIR: dataDir },
      async drop() {
        const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
        await client.connect();
        await client.query(`drop database if exists ${name} with (force)`);
        await client.end();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const template = process.env.GATEHOUSE_TEST_TEMPLATE_DIR;
  if (!template) throw new Error('run the suite with `npm test` (it builds the template data directory)');
  fs.cpSync(template, dataDir, { recursive: true });
  return {
    env: { DATABASE_URL: '', DATA_DIR: dataDir },
    async drop() {
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface TestApp {
  app: App;
  services: Services;
  config: Config;
  logs: LogCapture;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Register extra routes (test fixtures) before the app is ready. */
  extend?: (app: App) => Promise<void> | void;
  /** Start the job workers and schedules (off by default: a test that needs them says so). */
  runJobs?: boolean;
  /** The service's clock, for a test that moves time instead of waiting (see ManualClock). */
  clock?: Clock;
}

/** The real app on a fresh database, for app.inject() tests. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const config = loadConfig({
    LOG_LEVEL: process.env.GATEHOUSE_TEST_LOG_LEVEL ?? 'info',
    ...database.env,
    ...options.env,
  });
  const logs = new LogCapture();
  const logger = createLogger(config, logs);
  const services = await startServices(config, logger, {
    role: 'owner',
    command: 'test',
    runJobs: options.runJobs ?? false,
    clock: options.clock,
  });
  const app = await buildApp(services);
  if (options.extend) await options.extend(app);
  await app.ready();
  return {
    app,
    services,
    config,
    logs,
    async close() {
      await app.close();
      await services.close();
      await database.drop();
    },
  };
}

export interface AppFixtureOptions extends TestAppOptions {
  /** Env that needs something started first (a receiver, an S3 server): started before the app, its env added. */
  prepare?: () => Promise<Record<string, string> | undefined>;
  /** What the file sets up once the app is ready (tenants, tokens); in the same before hook, since Node 20 runs a file's top-level before hooks at once. */
  started?: (t: TestApp) => Promise<void>;
  /** Closed after the app (what `prepare` started). */
  cleanup?: () => Promise<void> | void;
}

/**
 * The test app of a file (or of the describe it is called in): started in a before hook, closed in an
 * after hook. What it answers is the app once that hook ran, so a file says only what is particular to it:
 *
 *   const t = appFixture({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
 *   it('…', async () => { await typedClient(t, token).GET('/facilities'); });
 */
export function appFixture(options: AppFixtureOptions = {}): TestApp {
  const { prepare, started, cleanup, ...appOptions } = options;
  let t: TestApp | undefined;
  before(async () => {
    const prepared = (await prepare?.()) ?? {};
    t = await startTestApp({ ...appOptions, env: { ...appOptions.env, ...prepared } });
    await started?.(t);
  });
  after(async () => {
    await t?.close();
    await cleanup?.();
  });
  const current = (): TestApp => {
    if (!t) throw new Error('the app fixture is used before its before hook');
    return t;
  };
  // Closed by the fixture's after hook; the rest is the app that hook started.
  const view = { close: async () => {} } as TestApp;
  for (const key of ['app', 'services', 'config', 'logs'] as const)
    Object.defineProperty(view, key, { get: () => current()[key], enumerable: true });
  return view;
}

/** A clock that moves only when the test says so. */
export class ManualClock implements Clock {
  constructor(private at = Date.now()) {}
  now(): number {
    return this.at;
  }
  advance(ms: number): void {
    this.at += ms;
  }
}

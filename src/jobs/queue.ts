// The job queue: pg-boss on the service's own pool (one set of connections, and jobs can be
// enqueued inside a business transaction). Faces contribute job definitions; this module owns
// the queue's life cycle.
import { createRequire } from 'node:module';
import PgBoss from 'pg-boss';
import type pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import { CompiledQuery } from 'kysely';
import type { Db } from '../db/tables.ts';

export interface JobDefinition<T extends object = object> {
  name: string;
  /** Handles a batch of jobs; a throw fails every job of the batch (each retried on its own policy). */
  handle(jobs: PgBoss.Job<T>[]): Promise<void>;
  queue?: Omit<PgBoss.Queue, 'name'>;
  batchSize?: number;
  pollingIntervalSeconds?: number;
  /** Cron expression (UTC) for recurring jobs. */
  schedule?: string;
  /**
   * The names this job had before its folder changed (pg-boss persists queue names and schedules):
   * at start each one's schedule is removed, and a queue of that name that still holds jobs (sent
   * before the upgrade, or by the old schedule's last tick as the queue started) is worked by this
   * handler. An empty one is left as it is (no worker): deleting a queue is pg-boss's riskiest call.
   */
  formerNames?: readonly string[];
}

/** Anything that can run SQL: the pool, or the client of an open transaction. */
export interface SqlRunner {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** A pg-boss runner on the transaction's connection: jobs enqueued with it exist only if it commits. */
export function sqlRunner(db: Db): SqlRunner {
  return {
    async query(text: string, values?: unknown[]) {
      const result = await db.executeQuery(CompiledQuery.raw(text, values ?? []));
      return { rows: result.rows as Record<string, unknown>[] };
    },
  };
}

const SCHEMA = 'pgboss';
const DEADLOCK_DETECTED = '40P01';

/**
 * The statements by which pg-boss records a worked job's outcome (complete; fail, for a handler that
 * threw), exactly as it builds them. pg-boss 10 sends them without awaiting them (manager.js, watch):
 * when the database is unreachable at that moment — a failover while a handler ran — the rejection
 * reaches no one (the process's "a promise failed with no one to hear it") and the job stays active
 * until it expires (15 minutes by default), then runs again. So these two are repeated here until the
 * database answers (issue 27). Read from pg-boss itself: should a version build them differently,
 * nothing matches and they run once, as pg-boss sends them.
 */
const OUTCOME_STATEMENTS: ReadonlySet<string> = (() => {
  const plans = createRequire(import.meta.url)('pg-boss/src/plans.js') as Record<string, (schema: string) => string>;
  return new Set([plans.completeJobs!(SCHEMA), plans.failJobsById!(SCHEMA)]);
})();
const OUTCOME_RETRY_FIRST_MS = 250;
const OUTCOME_RETRY_LONGEST_MS = 2000;
/** Instances starting together: how often one tries to make a queue whose creation PostgreSQL aborted. */
const QUEUE_CREATION_ATTEMPTS = 8;

export class JobQueue {
  private readonly boss: PgBoss;
  private running = false;
  private starting = false;
  /** pg-boss was started (its timers run) — also when `start` failed part-way: stop then stops it. */
  private started = false;
  private readonly supervise: boolean;
  /** pg-boss's statements and the handlers it runs, until each settles (stop waits for them). */
  private readonly inFlight = new Set<Promise<unknown>>();

  /**
   * A queue that can send at once; `start` begins working the faces' job definitions. A server
   * supervises the queue (maintenance, schedules); one-shot commands only send.
   */
  constructor(
    pool: pg.Pool,
    private readonly logger: FastifyBaseLogger,
    options: { supervise: boolean },
  ) {
    this.supervise = options.supervise;
    this.boss = new PgBoss({
      db: {
        executeSql: (text, values) =>
          this.track(OUTCOME_STATEMENTS.has(text) ? this.recordOutcome(pool, text, values) : pool.query(text, values)),
      },
      schema: SCHEMA,
      supervise: options.supervise,
      schedule: options.supervise,
      migrate: true,
      maintenanceIntervalSeconds: 120,
    });
    this.boss.on('error', (error) => this.logger.error({ err: error }, 'job queue error'));
  }

  /** Starts the queue; a supervising queue also works the given definitions and their schedules. */
  async start(definitions: readonly JobDefinition[]): Promise<void> {
    this.starting = true;
    try {
      await this.boss.start();
      this.started = true;
      await this.work(definitions);
      this.running = true;
    } finally {
      this.starting = false;
    }
  }

  private async work(definitions: readonly JobDefinition[]): Promise<void> {
    if (!this.supervise) return;
    await this.createQueues(definitions);
    for (const definition of definitions) {
      await this.boss.work<object>(
        definition.name,
        { batchSize: definition.batchSize ?? 50, pollingIntervalSeconds: definition.pollingIntervalSeconds ?? 1 },
        (jobs) => this.track(definition.handle(jobs)),
      );
      if (definition.schedule) await this.boss.schedule(definition.name, definition.schedule);
      for (const former of definition.formerNames ?? []) await this.retire(former, definition);
    }
  }

  /**
   * Makes the queues that do not exist yet. pg-boss makes each queue's partition with DDL on its
   * shared job table, and two instances doing it at once can take those locks in different orders:
   * PostgreSQL then aborts one ("deadlock detected", 40P01) and that instance would fail to start.
   * The aborted creation left nothing behind (pg-boss's create_queue is one statement, and skips a
   * queue another instance made meanwhile), so it is tried again, a few times, after a random pause.
   * (A lock held across the creations would need a connection of its own while pg-boss's
   * statements wait for the pool: a small embedded pool would starve.)
   */
  private async createQueues(definitions: readonly JobDefinition[]): Promise<void> {
    for (const definition of definitions) {
      for (let attempt = 1; ; attempt++) {
        try {
          await this.boss.createQueue(definition.name, { name: definition.name, ...definition.queue });
          break;
        } catch (error) {
          if ((error as { code?: string }).code !== DEADLOCK_DETECTED || attempt >= QUEUE_CREATION_ATTEMPTS)
            throw error;
          await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 250));
        }
      }
    }
  }

  /** A job's former name: no schedule, and its queue worked while jobs sent under it remain. */
  private async retire(former: string, definition: JobDefinition): Promise<void> {
    await this.boss.unschedule(former);
    if (!(await this.boss.getQueue(former))) return;
    if ((await this.boss.getQueueSize(former, { before: 'completed' })) === 0) return;
    this.logger.info({ queue: former, now: definition.name }, 'jobs sent under a former name are worked under it');
    await this.boss.work<object>(
      former,
      { batchSize: definition.batchSize ?? 50, pollingIntervalSeconds: definition.pollingIntervalSeconds ?? 1 },
      (jobs) => this.track(definition.handle(jobs)),
    );
  }

  /**
   * A job's outcome, tried again while the database does not answer: after a failover the job is
   * completed (or failed, and retried by its policy) within seconds of the database's return,
   * instead of being left active until it expires. Whether the database answers is asked of it (a
   * `select 1`), not read from the error: a failure while it answers is tried once more (it may have
   * just come back), then thrown as the fault it is. Given up when the queue stops: the job then
   * expires and runs again, as it would have.
   */
  private async recordOutcome(pool: pg.Pool, text: string, values: unknown[] | undefined) {
    const outcome = { queue: values?.[0], jobs: (values?.[1] as unknown[] | undefined)?.length };
    let delayMs = OUTCOME_RETRY_FIRST_MS;
    let warned = false;
    let failedWhileAnswering = 0;
    for (;;) {
      try {
        return await pool.query(text, values);
      } catch (error) {
        if (!this.started) {
          this.logger.warn(
            { ...outcome, err: error },
            "a job's outcome was not recorded; it runs again when it expires",
          );
          // What pg-boss reads of the answer: no job changed.
          return { rows: [{ count: 0 }] };
        }
        const answers = await pool.query('select 1').then(
          () => true,
          () => false,
        );
        if (answers) {
          // pg-boss does not await it: the process logs it as a promise that failed unheard.
          if (++failedWhileAnswering > 1) throw error;
          continue;
        }
        failedWhileAnswering = 0;
        if (!warned)
          this.logger.warn(
            { ...outcome, err: error },
            "a job's outcome cannot be recorded while the database does not answer; it is tried again until it does",
          );
        warned = true;
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        delayMs = Math.min(delayMs * 2, OUTCOME_RETRY_LONGEST_MS);
      }
    }
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    work.then(
      () => this.inFlight.delete(work),
      () => this.inFlight.delete(work),
    );
    return work;
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** Between start() and its end: the workers are being set up (sending works already). */
  get isStarting(): boolean {
    return this.starting;
  }

  /** Enqueues a job; pass the transaction's client so that the job exists only if it commits. */
  async send<T extends object>(
    name: string,
    data: T,
    options: PgBoss.SendOptions = {},
    runner?: SqlRunner,
  ): Promise<string | null> {
    const db = runner ? { executeSql: (text: string, values: unknown[]) => runner.query(text, values) } : undefined;
    return this.boss.send(name, data, db ? { ...options, db } : options);
  }

  async stop(timeoutMs = 20_000): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.running = false;
    const deadline = Date.now() + timeoutMs;
    await this.boss.stop({ graceful: true, wait: true, timeout: timeoutMs, close: false });
    // pg-boss reports itself stopped while a worker's fetch may still be in flight (its jobs are then
    // handled after the stop), and it completes or fails a job without awaiting the statement: both
    // would reach the pool after it closed. Whatever it started settles first (within the timeout;
    // a job left active is retried when it expires).
    while (Date.now() < deadline) {
      // A settled fetch starts its handler, and a settled handler its complete or fail, in the
      // continuations that run before this turn ends.
      await new Promise((resolve) => setImmediate(resolve));
      if (this.inFlight.size === 0) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.inFlight]),
        new Promise((resolve) => (timer = setTimeout(resolve, deadline - Date.now()))),
      ]);
      clearTimeout(timer);
    }
  }
}

/** Installs pg-boss's schema without starting workers (used by `gatehouse migrate`). */
export async function installJobSchema(pool: pg.Pool): Promise<void> {
  const boss = new PgBoss({
    db: { executeSql: (text, values) => pool.query(text, values) },
    schema: SCHEMA,
    supervise: false,
    schedule: false,
    migrate: true,
  });
  boss.on('error', () => {});
  await boss.start();
  await boss.stop({ graceful: false, wait: true, close: false });
}

// The job queue: pg-boss on the service's own pool (one set of connections, and jobs can be
// enqueued inside a business transaction). Faces contribute job definitions; this module owns
// the queue's life cycle.
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

const DEADLOCK_DETECTED = '40P01';
/** Instances starting together: how often one tries to make a queue whose creation PostgreSQL aborted. */
const QUEUE_CREATION_ATTEMPTS = 8;

export class JobQueue {
  private readonly boss: PgBoss;
  private running = false;
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
      db: { executeSql: (text, values) => this.track(pool.query(text, values)) },
      schema: 'pgboss',
      supervise: options.supervise,
      schedule: options.supervise,
      migrate: true,
      maintenanceIntervalSeconds: 120,
    });
    this.boss.on('error', (error) => this.logger.error({ err: error }, 'job queue error'));
  }

  /** Starts the queue; a supervising queue also works the given definitions and their schedules. */
  async start(definitions: readonly JobDefinition[]): Promise<void> {
    await this.boss.start();
    this.started = true;
    await this.work(definitions);
    this.running = true;
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
    schema: 'pgboss',
    supervise: false,
    schedule: false,
    migrate: true,
  });
  boss.on('error', () => {});
  await boss.start();
  await boss.stop({ graceful: false, wait: true, close: false });
}

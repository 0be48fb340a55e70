// Who works the lanes in this process. A lane is kicked — by the event signal (an ingest of its
// account committed), by its retry's job coming due, by the sweep (every SWEEP_MS, one query for
// the lanes that have work: a retry due, facts past their position, a lane a crash left part-way),
// or by a change of the subscription — and worked at once if it is not already being worked here,
// else worked again right after. At most `concurrency` lanes are worked at a time in this process;
// each lane is its own sequence, so one slow or dead receiver holds only its own lane (and one of
// the slots, for at most the delivery time limit). Across instances the lease decides (lane.ts).
import type { EntityId } from '../ids.ts';
import type { Logger } from '../logger.ts';

export interface DispatcherOptions {
  concurrency: number;
  sweepMs: number;
  /** Works one turn of a lane; resolves with when it has work again (null: idle). 'busy': another instance has it. */
  work(id: EntityId): Promise<{ retryAt: Date | null } | 'busy'>;
  /** The lanes with work now (the sweep). */
  due(): Promise<EntityId[]>;
  /** A lane's retry, made durable (the job queue): it kicks the lane at that time even after a restart. */
  scheduleRetry(id: EntityId, at: Date): Promise<void>;
  logger: Logger;
}

export class Dispatcher {
  private readonly running = new Map<EntityId, { again: boolean }>();
  private readonly waiting = new Set<EntityId>();
  private sweepTimer: NodeJS.Timeout | null = null;
  /** The sweep in progress: one at a time, and close() waits for it (its query must not outlive the database). */
  private sweeping: Promise<void> | null = null;
  private closed = false;
  /** Kicks before start (a one-shot command, a test without workers) are ignored: the sweep finds the work later. */
  private started = false;
  private readonly idle = new Set<() => void>();

  constructor(private readonly options: DispatcherOptions) {}

  start(): void {
    this.started = true;
    this.sweepTimer = setInterval(() => void this.sweep(), this.options.sweepMs);
    this.sweepTimer.unref();
  }

  /** Works the lane soon (now, or after the turn in progress). */
  kick(id: EntityId): void {
    if (this.closed || !this.started) return;
    const run = this.running.get(id);
    if (run) {
      run.again = true;
      return;
    }
    if (this.running.size >= this.options.concurrency) {
      this.waiting.add(id);
      return;
    }
    this.running.set(id, { again: false });
    void this.run(id);
  }

  private async run(id: EntityId): Promise<void> {
    const state = this.running.get(id)!;
    try {
      for (;;) {
        state.again = false;
        const result = await this.options.work(id).catch((error) => {
          this.options.logger.warn(
            { err: error, subscriptionId: id },
            'webhook lane turn failed; the sweep retries it',
          );
          return 'busy' as const;
        });
        if (result !== 'busy' && result.retryAt) {
          // A turn that ran out of time has more now: go on at once. A retry waits for its job.
          if (result.retryAt.getTime() <= Date.now()) state.again = true;
          else await this.options.scheduleRetry(id, result.retryAt).catch(() => {});
        }
        if (!state.again || this.closed) break;
      }
    } finally {
      this.running.delete(id);
      const next = this.waiting.values().next();
      if (!next.done) {
        this.waiting.delete(next.value);
        this.kick(next.value);
      }
      if (this.running.size === 0) for (const resolve of this.idle) resolve();
    }
  }

  sweep(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.sweeping ??= this.options
      .due()
      .then((ids) => {
        for (const id of ids) this.kick(id);
      })
      .catch((error) => this.options.logger.warn({ err: error }, 'webhook sweep failed; it runs again shortly'))
      .finally(() => {
        this.sweeping = null;
      });
    return this.sweeping;
  }

  /** Lanes being worked now (metrics, tests). */
  get active(): number {
    return this.running.size;
  }

  /** Stops kicking; waits for the turns in progress (each ends within a delivery's time limit). */
  async close(): Promise<void> {
    this.closed = true;
    this.waiting.clear();
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await this.sweeping;
    if (this.running.size > 0) await new Promise<void>((resolve) => this.idle.add(resolve));
  }
}

// Who works the lanes in this process. A lane is kicked — by the event signal (an ingest of its
// account committed), by its retry's job coming due, by the sweep (every SWEEP_MS, one query for
// the lanes that have work: a retry due, facts past their position, a lane a crash left part-way),
// or by a change of the subscription — and worked at once if a slot is free for it, else as soon as
// one is. A lane kicked while it is being worked goes on at the next gathering tick (with what its
// account committed meanwhile): a turn that has caught up waits for that tick inside the turn,
// keeping its lease, for as long as its account keeps committing (LaneSignal), so that lanes in
// step fill together at each tick and share their reads (sources.ts); it leaves when a tick or two
// pass without a kick, when the kick says the subscription itself changed, or when a waiting lane
// could have its slot — and is then worked again at the next tick if it was kicked, behind the lanes
// already waiting. Each lane is its own sequence, so one slow or dead receiver holds only its own
// lane. Across instances the lease decides (lane.ts).
//
// Slots are shared fairly between owners (issue 23): one owner (an account, a partner) has at most
// `perOwner` lanes worked at once, and lanes that have been failing are worked in their own small
// pool (`failingConcurrency`), so that an owner's hundred dead receivers hold a few slots, not all of
// them, and never the healthy lanes' pool once they are known to fail. The rule is `admits`, below.
import { GatheringTicks } from '../clock.ts';
import type { EntityId } from '../ids.ts';
import type { Logger } from '../logger.ts';

export type Pool = 'healthy' | 'failing';

export interface SlotLimits {
  /** Healthy lanes worked at once in this process. */
  concurrency: number;
  /** Lanes that have been failing worked at once, in their own pool. */
  failingConcurrency: number;
  /** Lanes of one owner worked at once, both pools together. */
  perOwner: number;
}

export interface SlotUse {
  /** Lanes being worked, by pool. */
  pools: Record<Pool, number>;
  /** Lanes being worked, by owner. */
  owners: ReadonlyMap<string, number>;
}

/** Whether a lane of this owner, in this pool, may be worked now. */
export function admits(limits: SlotLimits, use: SlotUse, owner: string, pool: Pool): boolean {
  const size = pool === 'healthy' ? limits.concurrency : limits.failingConcurrency;
  return use.pools[pool] < size && (use.owners.get(owner) ?? 0) < limits.perOwner;
}

/** Who a lane belongs to, and whether it has been failing (its last attempt failed). */
export interface LaneInfo {
  owner: string;
  failing: boolean;
}

/** What a turn that has caught up waits on (lane.ts). */
export interface LaneSignal {
  /**
   * Waits for the next gathering tick at which the lane has been kicked since it last asked (its
   * account committed more): 'kicked'. 'leave' when `ticks` ticks pass without a kick, when a kick
   * said the subscription itself changed (its next turn starts from its row again), when a lane
   * waiting for a slot could take this one's, or when the dispatcher closes.
   */
  next(ticks: number): Promise<'kicked' | 'leave'>;
}

export interface DispatcherOptions extends SlotLimits {
  sweepMs: number;
  /** Works one turn of a lane; resolves with when it has work again (null: idle), and whether it is failing. 'busy': another instance has it. */
  work(id: EntityId, signal: LaneSignal): Promise<{ retryAt: Date | null; failing: boolean } | 'busy'>;
  /** The lanes with work now (the sweep). */
  due(): Promise<EntityId[]>;
  /** Who owns a lane and whether it is failing, as last read from the database; undefined when not known yet. */
  laneOf(id: EntityId): LaneInfo | undefined;
  /** A lane's retry, made durable (the job queue): it kicks the lane at that time even after a restart. */
  scheduleRetry(id: EntityId, at: Date): Promise<void>;
  logger: Logger;
  /**
   * A lane kicked while it was worked (its account committed more) is worked again at the next tick
   * of this clock (default 50 ms), with the lanes kicked meanwhile: what hundreds of commits a second
   * store goes out in one delivery per tick, not one per commit.
   */
  gatherMs?: number;
}

/** Lanes whose owner is not known yet (a subscription made a moment ago on another instance) share one owner's slots. */
const UNKNOWN_OWNER = '?';

export class Dispatcher {
  /** `again`: kicked during its turn; `changed`: by a change of the subscription or its lane (its owner's edit, a replay, a delivery sent again). */
  private readonly running = new Map<EntityId, { again: boolean; changed: boolean; owner: string; pool: Pool }>();
  /** Kicked lanes waiting for a slot, in the order they were kicked. */
  private readonly waiting = new Set<EntityId>();
  private readonly use: SlotUse & { owners: Map<string, number> } = {
    pools: { healthy: 0, failing: 0 },
    owners: new Map(),
  };
  /** What this process's last turn of a lane found: newer than the database row laneOf read. */
  private readonly failingNow = new Map<EntityId, boolean>();
  private sweepTimer: NodeJS.Timeout | null = null;
  /** The sweep in progress: one at a time, and close() waits for it (its query must not outlive the database). */
  private sweeping: Promise<void> | null = null;
  private closed = false;
  /** Kicks before start (a one-shot command, a test without workers) are ignored: the sweep finds the work later. */
  private started = false;
  private readonly idle = new Set<() => void>();
  /** Lanes to kick at the next gathering tick. */
  private readonly gathering = new Set<EntityId>();
  /** The gathering ticks (multiples of gatherMs on the clock: every lane waiting for one wakes at once). */
  private readonly ticks = new GatheringTicks(() => this.options.gatherMs ?? 50);

  constructor(private readonly options: DispatcherOptions) {}

  start(): void {
    this.started = true;
    this.sweepTimer = setInterval(() => void this.sweep(), this.options.sweepMs);
    this.sweepTimer.unref();
  }

  /**
   * Works the lane soon (now, as soon as a slot is free for it, or at the next tick when it is being
   * worked). `changed`: the subscription or its lane changed (not only its account's facts), so a
   * turn in progress ends and the next one reads the lane again.
   */
  kick(id: EntityId, changed = false): void {
    if (this.closed || !this.started) return;
    const run = this.running.get(id);
    if (run) {
      run.again = true;
      run.changed ||= changed;
      return;
    }
    if (!this.tryStart(id)) this.waiting.add(id);
  }

  private placeOf(id: EntityId): { owner: string; pool: Pool } {
    const info = this.options.laneOf(id);
    const failing = this.failingNow.get(id) ?? info?.failing ?? false;
    return { owner: info?.owner ?? UNKNOWN_OWNER, pool: failing ? 'failing' : 'healthy' };
  }

  private tryStart(id: EntityId): boolean {
    const { owner, pool } = this.placeOf(id);
    if (!admits(this.options, this.use, owner, pool)) return false;
    this.running.set(id, { again: false, changed: false, owner, pool });
    this.use.pools[pool]++;
    this.use.owners.set(owner, (this.use.owners.get(owner) ?? 0) + 1);
    void this.run(id);
    return true;
  }

  /** Starts every waiting lane a slot is free for, oldest kick first. */
  private startWaiting(): void {
    for (const id of this.waiting) {
      if (this.closed) return;
      if (this.tryStart(id)) this.waiting.delete(id);
      else if (
        this.use.pools.healthy >= this.options.concurrency &&
        this.use.pools.failing >= this.options.failingConcurrency
      )
        return;
    }
  }

  private async run(id: EntityId): Promise<void> {
    const state = this.running.get(id)!;
    // The turn ran out of time with more to do: the lane goes on at once (a backlog catches up).
    let more = false;
    try {
      const result = await this.options.work(id, this.signalOf(id)).catch((error) => {
        this.options.logger.warn({ err: error, subscriptionId: id }, 'webhook lane turn failed; the sweep retries it');
        return 'busy' as const;
      });
      if (result !== 'busy') {
        this.failingNow.set(id, result.failing);
        if (result.retryAt) {
          // A turn that ran out of time has more now: go on soon. A retry waits for its job.
          if (result.retryAt.getTime() <= Date.now()) more = true;
          else await this.options.scheduleRetry(id, result.retryAt).catch(() => {});
        }
      }
    } finally {
      this.running.delete(id);
      this.yielding.delete(id);
      this.use.pools[state.pool]--;
      const left = (this.use.owners.get(state.owner) ?? 1) - 1;
      if (left === 0) this.use.owners.delete(state.owner);
      else this.use.owners.set(state.owner, left);
      // The lanes already waiting go first; a lane with more work takes its turn behind them.
      this.startWaiting();
      if (more && !this.closed) this.kick(id);
      else if (state.again && !this.closed) this.kickAtTick(id);
      if (this.running.size === 0) for (const resolve of this.idle) resolve();
    }
  }

  private kickAtTick(id: EntityId): void {
    const first = this.gathering.size === 0;
    this.gathering.add(id);
    if (!first) return;
    void this.ticks.next().then(() => {
      const ids = [...this.gathering];
      this.gathering.clear();
      for (const gathered of ids) this.kick(gathered);
    });
  }

  /** Running lanes that are giving their slot up to a waiting lane (each such lane frees one). */
  private readonly yielding = new Set<EntityId>();

  /**
   * Whether this running lane should give its slot up: a lane waiting for a slot would be admitted
   * in its place, and is not already being made room for by another lane leaving (so that one
   * waiting lane sends one lane away, not every lane of its owner).
   */
  private wantedElsewhere(id: EntityId, state: { owner: string; pool: Pool }): boolean {
    if (this.waiting.size <= this.yielding.size) return false;
    const owners = new Map(this.use.owners);
    owners.set(state.owner, (owners.get(state.owner) ?? 1) - 1);
    const pools = { ...this.use.pools, [state.pool]: this.use.pools[state.pool] - 1 };
    let admitted = 0;
    for (const waiting of this.waiting) {
      const { owner, pool } = this.placeOf(waiting);
      if (admits(this.options, { pools, owners }, owner, pool) && ++admitted > this.yielding.size) {
        this.yielding.add(id);
        return true;
      }
    }
    return false;
  }

  private signalOf(id: EntityId): LaneSignal {
    return {
      next: async (ticks) => {
        for (let tick = 0; tick < ticks; tick++) {
          const state = this.running.get(id);
          if (this.closed || !state || state.changed || this.wantedElsewhere(id, state)) return 'leave';
          await this.ticks.next();
          // A lane kicked at every tick (a busy account) still gives its slot up to one waiting for it.
          if (this.closed || state.changed || this.wantedElsewhere(id, state)) return 'leave';
          if (state.again) {
            state.again = false;
            return 'kicked';
          }
        }
        return 'leave';
      },
    };
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
    this.gathering.clear();
    // Turns waiting for the tick wake now, and leave.
    this.ticks.wakeAll();
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await this.sweeping;
    if (this.running.size > 0) await new Promise<void>((resolve) => this.idle.add(resolve));
  }
}

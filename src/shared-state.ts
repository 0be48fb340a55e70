// State that several instances share — the request rate limit's counters and the failed-token
// counters — lives in Redis when REDIS_URL is set. Redis accelerates; it is not a dependency: this
// module owns the connection's health, and while Redis is down every caller uses process memory
// instead (counts are then per instance, which is less exact, never unavailable).
//
// How the connection is kept honest:
// - no command waits for a connection: while it is not ready a command fails at once (ioredis's
//   offline queue would hold every request for seconds, which is what took the service down);
// - every command has a short timeout (REDIS_COMMAND_TIMEOUT_MS); one that times out means the
//   connection is frozen (a partition keeps it open with nothing moving), so it is dropped;
// - ioredis reconnects in the background, forever; when the connection is ready again Redis is
//   used again.
// Each change is logged once (down, then back), counted in `gatehouse_redis_up`, and reported by
// /availability as `redis: 'degraded'` — never as unavailable.
import type { Redis } from 'ioredis';
import type pino from 'pino';
import { Gauge, type Registry } from 'prom-client';

export type SharedStateStatus = 'ok' | 'degraded' | 'not configured';

type IoRedis = Pick<typeof import('ioredis'), 'Redis' | 'ReplyError'>;

export class SharedState {
  private readonly redis: Redis | null;
  private readonly ReplyError: IoRedis['ReplyError'] | null;
  private up = false;
  /** Whether "down" was logged, so that "back" is logged once after it (and never at start-up). */
  private reportedDown = false;
  private lastError = '';
  private closing = false;

  /** The shared state of REDIS_URL (ioredis is loaded only then), or process memory alone (null). */
  static async open(
    url: string | null,
    logger: pino.Logger,
    options: { commandTimeoutMs: number; registry?: Registry },
  ): Promise<SharedState> {
    if (!url) return new SharedState(null, logger, options);
    const { Redis, ReplyError } = await import('ioredis');
    return new SharedState({ url, ioredis: { Redis, ReplyError } }, logger, options);
  }

  private constructor(
    redis: { url: string; ioredis: IoRedis } | null,
    private readonly logger: pino.Logger,
    options: { commandTimeoutMs: number; registry?: Registry },
  ) {
    this.ReplyError = redis?.ioredis.ReplyError ?? null;
    this.redis = redis
      ? new redis.ioredis.Redis(redis.url, {
          enableOfflineQueue: false,
          commandTimeout: options.commandTimeoutMs,
          // A command in flight when the connection drops fails rather than being sent again on the
          // next connection: its caller has used memory by then, and an INCR sent twice counts twice.
          maxRetriesPerRequest: 0,
          autoResendUnfulfilledCommands: false,
          connectTimeout: Math.max(1000, options.commandTimeoutMs * 2),
          retryStrategy: (attempt) => Math.min(100 * attempt, 2000),
        })
      : null;
    if (!this.redis) return;
    this.redis.on('ready', () => this.markUp());
    this.redis.on('close', () => this.markDown(this.lastError || 'the connection closed'));
    // Every reconnection attempt emits an error; the outage is logged once by markDown.
    this.redis.on('error', (error: Error) => {
      this.lastError = error.message;
      this.logger.debug({ err: error }, 'redis connection error');
    });
    if (options.registry) {
      const state = this;
      new Gauge({
        name: 'gatehouse_redis_up',
        help: '1 while Redis (REDIS_URL) is used for shared counters, 0 while process memory stands in for it.',
        registers: [options.registry],
        // Under WORKERS, 0 when any worker's Redis is down (src/ops/cluster-metrics.ts).
        aggregator: 'min',
        collect() {
          this.set(state.up ? 1 : 0);
        },
      });
    }
  }

  /** What /availability reports; no I/O, so that a probe never waits on Redis. */
  get status(): SharedStateStatus {
    if (!this.redis) return 'not configured';
    return this.up ? 'ok' : 'degraded';
  }

  /** Waits (at most `ms`) for the first connection, so that a healthy Redis counts from the first request. */
  async connected(ms: number): Promise<void> {
    const redis = this.redis;
    if (!redis || this.up) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        redis.off('ready', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      redis.once('ready', done);
    });
  }

  /**
   * `shared(redis)` while Redis is up; `local()` while it is down, or when the command fails — the
   * caller always gets an answer within the command timeout.
   */
  async run<T>(shared: (redis: Redis) => Promise<T>, local: () => T): Promise<T> {
    if (!this.redis || !this.up) return local();
    try {
      return await shared(this.redis);
    } catch (error) {
      this.failed(error);
      return local();
    }
  }

  close(): void {
    this.closing = true;
    this.redis?.disconnect();
  }

  private failed(error: unknown) {
    // Redis answered with an error: a fault in our command, not an outage. Say so loudly.
    if (this.ReplyError && error instanceof this.ReplyError) {
      this.logger.error({ err: error }, 'redis refused a command; process memory answered instead');
      return;
    }
    const wasUp = this.up;
    const message = error instanceof Error ? error.message : String(error);
    this.markDown(message);
    // A timeout on an open connection: it is frozen. Drop it; ioredis reconnects in the background.
    if (wasUp && /timed out/i.test(message)) this.redis?.disconnect(true);
  }

  private markDown(reason: string) {
    this.up = false;
    if (this.closing || this.reportedDown) return;
    this.reportedDown = true;
    this.logger.warn(
      { reason },
      'Redis is unavailable: rate limits and failed-token counters use process memory until it is back',
    );
  }

  private markUp() {
    this.up = true;
    this.lastError = '';
    if (!this.reportedDown) return;
    this.reportedDown = false;
    this.logger.info('Redis is back: rate limits and failed-token counters are shared again');
  }
}

/**
 * Per-key state of a fixed time window in process memory (what counters use while Redis is down,
 * or when it is not configured). Ended windows are dropped when read, and swept when the map has
 * doubled since the last sweep, so a flood of distinct keys costs memory for one window at most.
 */
export class MemoryWindows<T extends { endsAt: number }> {
  private readonly windows = new Map<string, T>();
  private sweepAt = 10_000;

  get(key: string, now: number): T | undefined {
    const window = this.windows.get(key);
    if (window && window.endsAt <= now) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }

  set(key: string, window: T, now: number): void {
    if (this.windows.size >= this.sweepAt) {
      for (const [k, w] of this.windows) if (w.endsAt <= now) this.windows.delete(k);
      this.sweepAt = Math.max(10_000, this.windows.size * 2);
    }
    this.windows.set(key, window);
  }
}

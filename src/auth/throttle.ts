// Throttling of failed token requests, per client id and per source address: after `limit`
// failures in a window, further attempts are refused (429 + Retry-After) without checking the
// secret, until the window ends. Counters live in memory, or in Redis when REDIS_URL is set so
// that several instances share them.
import type { Redis } from 'ioredis';

export interface FailureCounter {
  /** Seconds until the key may try again, or 0 when it is not throttled. */
  blockedFor(key: string): Promise<number>;
  recordFailure(key: string): Promise<void>;
}

export class MemoryFailureCounter implements FailureCounter {
  private readonly windows = new Map<string, { failures: number; endsAt: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowSeconds: number,
  ) {}

  async blockedFor(key: string): Promise<number> {
    const window = this.windows.get(key);
    if (!window) return 0;
    const now = Date.now();
    if (window.endsAt <= now) {
      this.windows.delete(key);
      return 0;
    }
    return window.failures >= this.limit ? Math.ceil((window.endsAt - now) / 1000) : 0;
  }

  async recordFailure(key: string): Promise<void> {
    const now = Date.now();
    const window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      if (this.windows.size > 100_000) this.prune(now);
      this.windows.set(key, { failures: 1, endsAt: now + this.windowSeconds * 1000 });
    } else {
      window.failures += 1;
    }
  }

  private prune(now: number) {
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
  }
}

export class RedisFailureCounter implements FailureCounter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limit: number,
    private readonly windowSeconds: number,
  ) {}

  async blockedFor(key: string): Promise<number> {
    const name = `gh:tokenfail:${this.prefix}${key}`;
    const [failures, ttl] = await this.redis.multi().get(name).pttl(name).exec().then((r) => [Number(r?.[0]?.[1] ?? 0), Number(r?.[1]?.[1] ?? 0)]);
    return failures >= this.limit && ttl > 0 ? Math.ceil(ttl / 1000) : 0;
  }

  async recordFailure(key: string): Promise<void> {
    const name = `gh:tokenfail:${this.prefix}${key}`;
    const count = await this.redis.incr(name);
    if (count === 1) await this.redis.expire(name, this.windowSeconds);
  }
}

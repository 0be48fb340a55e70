// The request rate limit's counters: a store for @fastify/rate-limit that counts in Redis while it
// is up (instances count together) and in process memory while it is not (SharedState decides per
// call), so that a Redis outage costs exactness, never an answer. app.ts spreads
// rateLimitStoreOptions() into the plugin's options.
import type { FastifyRateLimitStore } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { MemoryWindows, type SharedState } from '../shared-state.ts';

/**
 * Route config (`config: { rateLimit: COUNTED_IN_PROCESS }`) for the liveness probe: it is counted
 * in process memory only, so /health never touches Redis (a probe's count means nothing to the
 * other instances anyway). Its requests count apart from the caller's other requests.
 */
export const COUNTED_IN_PROCESS = { groupId: 'counted-in-process' } as const;

const KEY_PREFIX = 'gh:ratelimit:';

// One fixed window per key: INCR, and the window's expiry set by the first hit (or healed when a
// key has none), in one script so that no two instances can interleave.
const HIT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`;

interface Hit {
  current: number;
  /** Milliseconds until the window ends. */
  ttl: number;
}

class RateLimitCounters implements FastifyRateLimitStore {
  constructor(
    private readonly shared: SharedState,
    private readonly memory: MemoryWindows<{ count: number; endsAt: number }>,
    private readonly prefix: string,
    private readonly inProcessOnly: boolean,
  ) {}

  incr(key: string, callback: (error: Error | null, result?: Hit) => void, timeWindowMs = 60_000): void {
    const name = this.prefix + key;
    const local = () => this.hitInMemory(name, timeWindowMs);
    const counted = this.inProcessOnly
      ? Promise.resolve(local())
      : this.shared.run((redis) => hitInRedis(redis, name, timeWindowMs), local);
    counted.then(
      (hit) => callback(null, hit),
      (error: Error) => callback(error),
    );
  }

  /** A route with its own `config.rateLimit` gets counters of its own. */
  child(routeOptions: object): FastifyRateLimitStore {
    // The plugin passes its merged parameters (untyped in its declarations): the route's groupId
    // and the route itself.
    const params = routeOptions as { groupId?: unknown; routeInfo?: { method?: unknown; url?: unknown } };
    const route = `${String(params.routeInfo?.method ?? '')}${String(params.routeInfo?.url ?? '')}-`;
    return new RateLimitCounters(
      this.shared,
      this.memory,
      this.prefix + route,
      params.groupId === COUNTED_IN_PROCESS.groupId,
    );
  }

  private hitInMemory(name: string, windowMs: number): Hit {
    const now = Date.now();
    let window = this.memory.get(name, now);
    if (!window) {
      window = { count: 0, endsAt: now + windowMs };
      this.memory.set(name, window, now);
    }
    window.count += 1;
    return { current: window.count, ttl: window.endsAt - now };
  }
}

async function hitInRedis(redis: Redis, name: string, windowMs: number): Promise<Hit> {
  const [current, ttl] = (await redis.eval(HIT, 1, name, windowMs)) as [number, number];
  return { current, ttl };
}

/** The `store` option of @fastify/rate-limit (the plugin constructs it itself). */
export function rateLimitStoreOptions(shared: SharedState): { store: new () => FastifyRateLimitStore } {
  const memory = new MemoryWindows<{ count: number; endsAt: number }>();
  return {
    store: class extends RateLimitCounters {
      constructor() {
        super(shared, memory, KEY_PREFIX, false);
      }
    },
  };
}

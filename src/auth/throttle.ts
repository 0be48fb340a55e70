// The throttle of token requests that fail client or account authentication.
//
// Client authentication failures (invalid_client: a wrong client secret, an unknown client) are
// counted per (client id, source address) — TOKEN_FAILURE_LIMIT in a fixed window of
// TOKEN_FAILURE_WINDOW_SECONDS — and per source address (10× the limit), never per client id
// alone: client ids are not secret, and a per-client-id count would let anyone who knows one lock
// that application (a PMS serving many accounts) out from every address. No global per-client
// ceiling is kept either: the secrets are 256 random bits, so spreading guesses over many
// addresses gains an attacker nothing, and the ceiling would only bring the lockout back.
//
// Grant failures (invalid_grant: a wrong account key or secret, a stale refresh token — the client
// secret was right) are counted per (client id, grant type, source address), with the same limit:
// guessing account secrets or refresh tokens stays bounded, but a PMS presenting stale refresh
// tokens never locks itself out of its password grant (nor of its client authentication).
//
// An attempt takes its place BEFORE its secret is checked: a key admits a check only while its
// failures plus the checks in progress are under the limit, decided atomically (synchronously in
// memory; one Lua script in Redis). So 200 parallel wrong secrets for one client from one address
// check at most `limit` of them — the rest are refused (429 + Retry-After) unchecked. When the
// check ends, a failure keeps its place (in the counters that count it) until the window ends;
// anything else — success, an unsupported grant, an overloaded server — gives it back, so
// successful requests never use up a client's allowance.
import { systemClock, type Clock } from '../clock.ts';
import type { Redis } from 'ioredis';
import { MemoryWindows, type SharedState } from '../shared-state.ts';
import { OAuthError } from './grants.ts';

export type Admission = { admitted: true } | { admitted: false; retryAfterSeconds: number };

/** Places for checks under one key: failures plus checks in progress stay under a limit. */
export interface AttemptCounter {
  begin(key: string): Promise<Admission>;
  end(key: string, failed: boolean): Promise<void>;
}

interface Tally {
  failed: number;
  checking: number;
  endsAt: number;
}

/**
 * Refused while failures fill the window: until it ends. Refused because checks are still in
 * progress: they end within a second or fail, so ask again in one.
 */
const retryAfter = (failed: number, limit: number, msLeft: number) =>
  failed >= limit ? Math.max(1, Math.ceil(msLeft / 1000)) : 1;

export class MemoryAttemptCounter implements AttemptCounter {
  private readonly tallies = new MemoryWindows<Tally>();

  constructor(
    private readonly limit: number,
    private readonly windowSeconds: number,
    private readonly clock: Clock = systemClock,
  ) {}

  async begin(key: string): Promise<Admission> {
    return this.beginNow(key);
  }

  /** Synchronous, so no two attempts can read the same count. */
  beginNow(key: string): Admission {
    const now = this.clock.now();
    let tally = this.tallies.get(key, now);
    if (!tally) {
      tally = { failed: 0, checking: 0, endsAt: now + this.windowSeconds * 1000 };
      this.tallies.set(key, tally, now);
    }
    if (tally.failed + tally.checking >= this.limit)
      return { admitted: false, retryAfterSeconds: retryAfter(tally.failed, this.limit, tally.endsAt - now) };
    tally.checking += 1;
    return { admitted: true };
  }

  async end(key: string, failed: boolean): Promise<void> {
    const now = this.clock.now();
    let tally = this.tallies.get(key, now);
    if (tally) tally.checking = Math.max(0, tally.checking - 1);
    if (!failed) return;
    if (!tally) {
      // The window ended while the check ran: the failure starts the next one.
      tally = { failed: 0, checking: 0, endsAt: now + this.windowSeconds * 1000 };
      this.tallies.set(key, tally, now);
    }
    tally.failed += 1;
  }
}

// KEYS[1] a hash {failed, checking} whose expiry is the window; ARGV: limit, window ms.
// Returns {admitted (1|0), failed, ms left in the window}.
const BEGIN = `
local tally = redis.call('HMGET', KEYS[1], 'failed', 'checking')
local failed = tonumber(tally[1]) or 0
local checking = tonumber(tally[2]) or 0
if failed + checking >= tonumber(ARGV[1]) then
  return {0, failed, redis.call('PTTL', KEYS[1])}
end
redis.call('HINCRBY', KEYS[1], 'checking', 1)
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return {1, failed, 0}`;

// KEYS[1] as above; ARGV: 1 when the check failed, window ms.
const END = `
if redis.call('EXISTS', KEYS[1]) == 1 and tonumber(redis.call('HINCRBY', KEYS[1], 'checking', -1)) < 0 then
  redis.call('HSET', KEYS[1], 'checking', 0)
end
if ARGV[1] == '1' then
  redis.call('HINCRBY', KEYS[1], 'failed', 1)
  if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
end
return 0`;

export class RedisAttemptCounter implements AttemptCounter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limit: number,
    private readonly windowSeconds: number,
  ) {}

  async begin(key: string): Promise<Admission> {
    const [admitted, failed, msLeft] = (await this.redis.eval(
      BEGIN,
      1,
      this.prefix + key,
      this.limit,
      this.windowSeconds * 1000,
    )) as [number, number, number];
    return admitted === 1
      ? { admitted: true }
      : { admitted: false, retryAfterSeconds: retryAfter(failed, this.limit, msLeft) };
  }

  async end(key: string, failed: boolean): Promise<void> {
    await this.redis.eval(END, 1, this.prefix + key, failed ? 1 : 0, this.windowSeconds * 1000);
  }
}

/**
 * Redis while it is up (instances share the counts), process memory while it is down. An attempt
 * begun in one and ended in the other is harmless: ending never takes a count below zero.
 */
export class SharedAttemptCounter implements AttemptCounter {
  private readonly memory: MemoryAttemptCounter;

  constructor(
    private readonly shared: SharedState,
    private readonly prefix: string,
    private readonly limit: number,
    private readonly windowSeconds: number,
    clock: Clock = systemClock,
  ) {
    this.memory = new MemoryAttemptCounter(limit, windowSeconds, clock);
  }

  begin(key: string): Promise<Admission> {
    return this.shared.run(
      (redis) => new RedisAttemptCounter(redis, this.prefix, this.limit, this.windowSeconds).begin(key),
      () => this.memory.beginNow(key),
    );
  }

  async end(key: string, failed: boolean): Promise<void> {
    await this.shared.run(
      (redis) => new RedisAttemptCounter(redis, this.prefix, this.limit, this.windowSeconds).end(key, failed),
      () => void this.memory.end(key, failed),
    );
  }
}

/** A client-authentication failure: the client's secret was checked and was wrong (or no such client). */
const isFailedClient = (error: unknown) => error instanceof OAuthError && error.error === 'invalid_client';
/** A grant failure: the client authenticated, then the account's secret or the refresh token was wrong. */
const isFailedGrant = (error: unknown) => error instanceof OAuthError && error.error === 'invalid_grant';

/** The grants that check a secret of their own; any other grant type is refused before a check. */
const GRANT_TYPES = new Set(['password', 'client_credentials', 'refresh_token']);

export class TokenThrottle {
  constructor(
    private readonly perClientAtAddress: AttemptCounter,
    private readonly perAddress: AttemptCounter,
    private readonly perGrantAtAddress: AttemptCounter,
  ) {}

  /** Counters in Redis when configured (with memory standing in while it is down), else in memory. */
  static create(shared: SharedState, limit: number, windowSeconds: number, clock: Clock = systemClock): TokenThrottle {
    return new TokenThrottle(
      new SharedAttemptCounter(shared, 'gh:tokenfail:client-at-address:', limit, windowSeconds, clock),
      new SharedAttemptCounter(shared, 'gh:tokenfail:address:', limit * 10, windowSeconds, clock),
      new SharedAttemptCounter(shared, 'gh:tokenfail:grant-at-address:', limit, windowSeconds, clock),
    );
  }

  /**
   * Runs `check` (a grant, which checks the client's secret and perhaps an account's or a refresh
   * token) if the (client, address), the (client, grant type, address) and the address have a place
   * for it; else refuses with 429 unchecked.
   */
  async attempt<T>(clientId: string, grantType: string, address: string, check: () => Promise<T>): Promise<T> {
    // Client ids, grant types and addresses hold no space, so the keys cannot be forged from other values.
    const pair = `${clientId} ${address}`;
    const grant = `${clientId} ${GRANT_TYPES.has(grantType) ? grantType : 'other'} ${address}`;
    const counters = [
      [this.perClientAtAddress, pair],
      [this.perGrantAtAddress, grant],
      [this.perAddress, address],
    ] as const;
    const admissions = await Promise.all(counters.map(([counter, key]) => counter.begin(key)));
    if (admissions.some((a) => !a.admitted)) {
      // A refused attempt checks nothing: give back the places the other counters gave it.
      await Promise.all(counters.map(([counter, key], i) => admissions[i]!.admitted && counter.end(key, false)));
      const seconds = Math.max(...admissions.map((a) => (a.admitted ? 0 : a.retryAfterSeconds)));
      throw new OAuthError(429, 'invalid_request', `Too many failed token requests; retry after ${seconds} seconds.`, {
        'retry-after': String(seconds),
      });
    }
    let clientFailed = false;
    let grantFailed = false;
    try {
      return await check();
    } catch (error) {
      clientFailed = isFailedClient(error);
      grantFailed = isFailedGrant(error);
      throw error;
    } finally {
      await Promise.all([
        this.perClientAtAddress.end(pair, clientFailed),
        this.perGrantAtAddress.end(grant, grantFailed),
        this.perAddress.end(address, clientFailed),
      ]);
    }
  }
}

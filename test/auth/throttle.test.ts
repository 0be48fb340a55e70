// The failed-token throttle's counters, without HTTP: a place is taken before the check, so
// parallel attempts can never check more than the limit — in memory and in Redis — and what
// is given back and kept.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import pino from 'pino';
import { OAuthError } from '../../src/auth/grants.ts';
import {
  MemoryAttemptCounter,
  RedisAttemptCounter,
  SharedAttemptCounter,
  TokenThrottle,
  type AttemptCounter,
} from '../../src/auth/throttle.ts';
import { SharedState } from '../../src/shared-state.ts';
import { LogCapture } from '../helpers/harness.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

const REDIS = { host: '127.0.0.1', port: 6379 };
const unique = () => randomBytes(6).toString('hex');

/** 200 attempts at once, each failing its check after a moment; how many were checked. */
async function parallelFailures(
  counter: AttemptCounter,
  key: string,
  attempts = 200,
): Promise<{ checked: number; refused: number[] }> {
  let checked = 0;
  const refused: number[] = [];
  await Promise.all(
    Array.from({ length: attempts }, async () => {
      const admission = await counter.begin(key);
      if (!admission.admitted) {
        refused.push(admission.retryAfterSeconds);
        return;
      }
      checked++;
      await new Promise((r) => setTimeout(r, 20));
      await counter.end(key, true);
    }),
  );
  return { checked, refused };
}

function behavesAsAttemptCounter(make: (limit: number, windowSeconds: number) => AttemptCounter) {
  it('checks at most `limit` of 200 parallel wrong secrets, and then refuses for the rest of the window', async () => {
    const counter = make(10, 60);
    const key = unique();
    const { checked, refused } = await parallelFailures(counter, key);
    assert.equal(checked, 10);
    assert.equal(refused.length, 190);
    // While checks are in progress, "ask again in a second"; once they have failed, the window's end.
    assert.ok(refused.every((s) => s >= 1 && s <= 60));
    const after = await counter.begin(key);
    assert.equal(after.admitted, false);
    assert.ok(!after.admitted && after.retryAfterSeconds > 50, JSON.stringify(after));
  });

  it('gives the place back when the check does not fail, so successes never use up the allowance', async () => {
    const counter = make(3, 60);
    const key = unique();
    for (let i = 0; i < 50; i++) {
      assert.equal((await counter.begin(key)).admitted, true, `attempt ${i}`);
      await counter.end(key, false);
    }
  });

  it('refuses while `limit` checks are in progress, with Retry-After 1, and admits again when they end', async () => {
    const counter = make(2, 60);
    const key = unique();
    assert.equal((await counter.begin(key)).admitted, true);
    assert.equal((await counter.begin(key)).admitted, true);
    assert.deepEqual(await counter.begin(key), { admitted: false, retryAfterSeconds: 1 });
    await counter.end(key, false);
    assert.equal((await counter.begin(key)).admitted, true);
  });

  it('starts over when the window ends', async () => {
    const counter = make(1, 1);
    const key = unique();
    assert.equal((await counter.begin(key)).admitted, true);
    await counter.end(key, true);
    assert.equal((await counter.begin(key)).admitted, false);
    await new Promise((r) => setTimeout(r, 1_100));
    assert.equal((await counter.begin(key)).admitted, true);
  });
}

describe('attempt counter in process memory', () => {
  behavesAsAttemptCounter((limit, windowSeconds) => new MemoryAttemptCounter(limit, windowSeconds));
});

describe('attempt counter in Redis', () => {
  let redis: Redis;
  before(() => {
    redis = new Redis(REDIS.port, REDIS.host);
  });
  after(() => redis.disconnect());
  const prefix = `gh:test:${unique()}:`;
  behavesAsAttemptCounter((limit, windowSeconds) => new RedisAttemptCounter(redis, prefix, limit, windowSeconds));

  it('shares the count between instances (two connections)', async () => {
    const other = new Redis(REDIS.port, REDIS.host);
    try {
      const key = unique();
      const one = new RedisAttemptCounter(redis, prefix, 10, 60);
      const two = new RedisAttemptCounter(other, prefix, 10, 60);
      const results = await Promise.all([parallelFailures(one, key, 100), parallelFailures(two, key, 100)]);
      assert.equal(results[0].checked + results[1].checked, 10);
    } finally {
      other.disconnect();
    }
  });
});

describe('TokenThrottle', () => {
  const wrongSecret = () => Promise.reject(new OAuthError(401, 'invalid_client', 'Client authentication failed.'));
  const throttle = () =>
    new TokenThrottle(
      new MemoryAttemptCounter(3, 60),
      new MemoryAttemptCounter(30, 60),
      new MemoryAttemptCounter(3, 60),
    );
  const staleToken = () => Promise.reject(new OAuthError(400, 'invalid_grant', 'The refresh token is not valid.'));

  it('throttles a client id per address: failures from one address do not refuse it at another', async () => {
    const t = throttle();
    for (let i = 0; i < 3; i++)
      await assert.rejects(t.attempt('app', 'client_credentials', '198.51.100.1', wrongSecret), { status: 401 });
    const refused = await t
      .attempt('app', 'client_credentials', '198.51.100.1', wrongSecret)
      .catch((e: OAuthError) => e);
    assert.ok(refused instanceof OAuthError);
    assert.equal(refused.status, 429);
    assert.equal(refused.error, 'invalid_request');
    assert.ok(Number(refused.headers['retry-after']) > 50);
    assert.equal(await t.attempt('app', 'client_credentials', '198.51.100.2', async () => 'token'), 'token');
  });

  it('throttles an address across client ids at 10× the limit', async () => {
    const t = throttle();
    let checked = 0;
    const guess = (clientId: string) =>
      t.attempt(clientId, 'client_credentials', '198.51.100.3', () => {
        checked++;
        return wrongSecret();
      });
    const outcomes = await Promise.allSettled(Array.from({ length: 100 }, (_, i) => guess(`made-up-${i}`)));
    assert.equal(checked, 30);
    assert.equal(outcomes.filter((o) => o.status === 'rejected' && (o.reason as OAuthError).status === 429).length, 70);
  });

  it('counts grant failures per grant type: stale refresh tokens refuse refreshes, never the password grant', async () => {
    const t = throttle();
    const address = '198.51.100.5';
    for (let i = 0; i < 3; i++)
      await assert.rejects(t.attempt('app', 'refresh_token', address, staleToken), { status: 400 });
    // Guessing refresh tokens stays bounded…
    await assert.rejects(t.attempt('app', 'refresh_token', address, staleToken), { status: 429 });
    // …while the client's other grant, and its client authentication, are untouched.
    assert.equal(await t.attempt('app', 'password', address, async () => 'token'), 'token');
    assert.equal(await t.attempt('app', 'client_credentials', address, async () => 'token'), 'token');
    // 100 more stale tokens for 100 clients from the address: the address is not closed by grant failures.
    for (let i = 0; i < 100; i++)
      await assert.rejects(t.attempt(`pms-${i}`, 'refresh_token', address, staleToken), { status: 400 });
    assert.equal(await t.attempt('another', 'password', address, async () => 'token'), 'token');
  });

  it('does not count errors other than failed authentication (a wrong grant type, a full line of checks)', async () => {
    const t = throttle();
    for (let i = 0; i < 10; i++) {
      await assert.rejects(
        t.attempt('app', 'client_credentials', '198.51.100.4', () =>
          Promise.reject(new OAuthError(503, 'temporarily_unavailable', 'busy')),
        ),
        { status: 503 },
      );
    }
    assert.equal(await t.attempt('app', 'client_credentials', '198.51.100.4', async () => 'token'), 'token');
  });
});

describe('counters while Redis is unreachable', () => {
  let proxy: TcpProxy;
  let shared: SharedState;
  let logs: LogCapture;
  before(async () => {
    proxy = await startTcpProxy(REDIS);
    logs = new LogCapture();
    shared = await SharedState.open(`redis://${proxy.address}`, pino({ level: 'info' }, logs), {
      commandTimeoutMs: 200,
    });
    await shared.connected(2_000);
  });
  after(async () => {
    shared.close();
    await proxy.close();
  });

  const waitFor = async (condition: () => boolean, ms: number) => {
    const deadline = Date.now() + ms;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error('timed out waiting');
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  for (const mode of ['down', 'freeze'] as const) {
    it(`counts in memory at once when Redis is ${mode === 'down' ? 'cut' : 'frozen'}, says so once, and uses Redis again when it is back`, async () => {
      assert.equal(shared.status, 'ok');
      const prefix = `gh:test:${unique()}:`;
      const counter = new SharedAttemptCounter(shared, prefix, 10, 60);
      const logged = logs.lines.length;
      proxy.setMode(mode);
      // The first attempt may wait for the command timeout (a frozen connection); then memory answers at once.
      await counter.begin(unique());
      const started = Date.now();
      const key = unique();
      const { checked } = await parallelFailures(counter, key);
      assert.equal(checked, 10, 'the memory counter holds the limit');
      assert.ok(Date.now() - started < 1_000, `took ${Date.now() - started} ms`);
      assert.equal(shared.status, 'degraded');
      const during = logs.lines.slice(logged);
      assert.equal(during.filter((l) => l.includes('Redis is unavailable')).length, 1, during.join('\n'));

      proxy.setMode('pass');
      await waitFor(() => shared.status === 'ok', 10_000);
      const back = unique();
      assert.equal((await counter.begin(back)).admitted, true);
      const redis = new Redis(REDIS.port, REDIS.host);
      try {
        assert.equal(await redis.hget(prefix + back, 'checking'), '1', 'the attempt was counted in Redis');
      } finally {
        redis.disconnect();
      }
      const all = logs.lines.slice(logged);
      assert.equal(all.filter((l) => l.includes('Redis is unavailable')).length, 1, all.join('\n'));
      assert.equal(all.filter((l) => l.includes('Redis is back')).length, 1, all.join('\n'));
    });
  }
});

// A Redis outage against the real server process (issue 9, item 2). Redis holds only the request
// rate limit's counters and the failed-token counters; before the fix, with REDIS_URL set and
// Redis unreachable, every route — /health and /availability included — answered 500 after
// seconds (or hung, on a frozen connection). A TCP proxy stands between the server and the
// Redis at 127.0.0.1:6379: it passes traffic, cuts it (connections reset, new ones refused) or
// freezes it (connections stay open, nothing moves — a partition). Redis is independent of the
// database, so this runs on both.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { cliJson } from '../helpers/process.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { loopback, postToken } from '../helpers/token-flood.ts';
import { realServer } from '../helpers/server.ts';

const REDIS = { host: '127.0.0.1', port: 6379 };
// Long enough that a request which waited on a frozen Redis is told apart from one that did not.
const COMMAND_TIMEOUT_MS = 3000;

let proxy: TcpProxy;
let redis: Redis;
let pms: { clientId: string; clientSecret: string };
let key: { apiKey: string; apiSecret: string };
let target: { clientId: string; clientSecret: string };

const served = realServer(
  {
    REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
    TOKEN_FAILURE_LIMIT: '3',
    RATE_LIMIT_PER_MINUTE: '100000',
  },
  {
    // Redis through a proxy the test can cut; the applications made with the command line first.
    async prepare(database) {
      proxy = await startTcpProxy(REDIS);
      redis = new Redis(REDIS.port, REDIS.host);
      const env = { ...database.env, REDIS_URL: `redis://${proxy.address}` };
      const json = (args: string[]) => cliJson(args, env);
      const account = await json(['admin', 'account', 'create', '--name', 'Redis outage']);
      pms = await json(['admin', 'app', 'create', '--name', 'PMS']);
      key = await json(['admin', 'account-key', 'create', '--account', account.id, '--app', pms.clientId]);
      target = await json(['admin', 'app', 'create', '--name', 'Guessed', '--operator']);
      return { REDIS_URL: env.REDIS_URL };
    },
    async cleanup() {
      await proxy?.close();
      redis?.disconnect();
    },
  },
);

async function timed(path: string, headers: Record<string, string> = {}) {
  const started = performance.now();
  const response = await fetch(served.url + path, { headers });
  const body: any = await response.json();
  return { response, body, ms: performance.now() - started };
}

async function availability() {
  return timed('/availability');
}

async function waitForRedis(state: 'ok' | 'degraded', ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const { body } = await availability();
    if (body.checks.redis === state) return;
    if (Date.now() > deadline) throw new Error(`/availability still says redis ${body.checks.redis}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const passwordForm = () => ({
  grant_type: 'password',
  client_id: pms.clientId,
  client_secret: pms.clientSecret,
  username: key.apiKey,
  password: key.apiSecret,
});
const guess = (i: number) => ({
  grant_type: 'client_credentials',
  client_id: target.clientId,
  client_secret: `gh_cs_guess${i}`,
});
const count = (text: string, what: string) => text.split(what).length - 1;
/** How often the server has logged `what`, once that reaches `times` (or after 5 s). */
const logged = async (what: string, times: number) => count(await served.server.logged(what, times), what);
const credentialOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')).cid as string;

function assertRateLimitHeaders(headers: { get(name: string): string | null } | Record<string, unknown>, what: string) {
  const get = (name: string) =>
    'get' in headers && typeof headers.get === 'function'
      ? headers.get(name)
      : (headers as Record<string, unknown>)[name];
  for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'])
    assert.ok(get(name) !== null && get(name) !== undefined, `${what}: ${name}`);
}

describe('the server while Redis is away', () => {
  it('uses Redis while it is up', async () => {
    const { response, body } = await availability();
    assert.equal(response.status, 200);
    assert.equal(body.checks.redis, 'ok');
    const from = loopback(10, 0);
    assert.equal((await postToken(served.url, guess(0), from)).status, 400);
    assert.equal(await redis.hget(`gh:tokenfail:client-at-address:${target.clientId} ${from}`, 'failed'), '1');
  });

  let outages = 0;
  for (const mode of ['down', 'freeze'] as const) {
    const what = mode === 'down' ? 'cut' : 'frozen';
    it(`keeps serving when Redis is ${what}: memory stands in, logged once, and Redis is used again when it is back`, async () => {
      outages++;
      proxy.setMode(mode);

      // Liveness never touches Redis: fast even before the outage is noticed.
      const health = await timed('/health');
      assert.equal(health.response.status, 200);
      assert.ok(health.ms < 1000, `/health took ${Math.round(health.ms)} ms`);
      assertRateLimitHeaders(health.response.headers, '/health');

      // Available, with Redis reported degraded (on a frozen connection this request is the one
      // whose rate-limit count waits for the command timeout, and finds it out).
      const available = await availability();
      assert.equal(available.response.status, 200, JSON.stringify(available.body));
      assert.equal(available.body.status, 'available');
      assert.equal(available.body.checks.redis, 'degraded');
      assert.ok(available.ms < COMMAND_TIMEOUT_MS + 2000, `/availability took ${Math.round(available.ms)} ms`);

      // Token and API routes answer at once, with their RateLimit-* headers, counted in memory.
      const token = await postToken(served.url, passwordForm(), loopback(11, outages));
      assert.equal(token.status, 200, JSON.stringify(token.body));
      assert.ok(token.ms < 1000, `token took ${Math.round(token.ms)} ms`);
      assertRateLimitHeaders(token.headers, '/auth/token');
      const accessToken = token.body.access_token as string;
      const whoami = await timed('/auth/whoami', { authorization: `Bearer ${accessToken}` });
      assert.equal(whoami.response.status, 200, JSON.stringify(whoami.body));
      assert.ok(whoami.ms < 1000, `whoami took ${Math.round(whoami.ms)} ms`);
      assertRateLimitHeaders(whoami.response.headers, '/auth/whoami');
      const again = await timed('/auth/whoami', { authorization: `Bearer ${accessToken}` });
      assert.equal(
        Number(again.response.headers.get('ratelimit-remaining')),
        Number(whoami.response.headers.get('ratelimit-remaining')) - 1,
        'counted in memory',
      );

      // The failed-token throttle still counts (in memory): limit 3, then 429 at that address.
      const from = loopback(12, outages);
      for (let i = 1; i <= 3; i++) assert.equal((await postToken(served.url, guess(i), from)).status, 400);
      const refused = await postToken(served.url, guess(4), from);
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers['retry-after']) > 0);

      assert.equal(await logged('Redis is unavailable', outages), outages, 'the outage is logged once');

      // Back: noticed by the background reconnection, used again, logged once.
      proxy.setMode('pass');
      await waitForRedis('ok');
      assert.equal(await logged('Redis is back', outages), outages);
      assert.equal(await logged('Redis is unavailable', outages), outages);
      const after = loopback(13, outages);
      assert.equal((await postToken(served.url, guess(5), after)).status, 400);
      assert.equal(
        await redis.hget(`gh:tokenfail:client-at-address:${target.clientId} ${after}`, 'failed'),
        '1',
        'the failure was counted in Redis',
      );
      const counted = await timed('/auth/whoami', { authorization: `Bearer ${accessToken}` });
      assert.equal(counted.response.status, 200);
      assert.ok(
        Number(await redis.get(`gh:ratelimit:account:${credentialOf(accessToken)}`)) >= 1,
        'the request was counted in Redis',
      );
    });
  }
});

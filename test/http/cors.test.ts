// CORS on every route (SPEC §4, §10): preflights answered before the guard, from the origins
// CORS_ORIGINS allows; the exposed headers on successes and on every kind of error, so that a
// browser PMS can sign in and read what went wrong.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS } from '../../src/http/cors.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { bearer, provisionAccount, type ProvisionedAccount } from '../helpers/tenants.ts';

const PMS = 'https://pms.example.com';
const DEV = 'http://localhost:3000';
const EVIL = 'https://evil.example.net';

type Headers = Record<string, string | string[] | number | undefined>;

const list = (value: unknown) =>
  String(value ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);

/** The preflight a browser sends before a cross-origin request it may not send simply. */
function preflight(t: TestApp, url: string, origin: string, method = 'POST', requestHeaders?: string) {
  return t.app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin,
      'access-control-request-method': method,
      ...(requestHeaders ? { 'access-control-request-headers': requestHeaders } : {}),
    },
  });
}

/** The headers a browser needs to hand an answer (of any status) to the script of `origin`. */
function assertReadableBy(headers: Headers, origin: string, expected: '*' | 'echo') {
  assert.equal(headers['access-control-allow-origin'], expected === '*' ? '*' : origin);
  assert.equal(headers['access-control-allow-credentials'], undefined);
  const exposed = list(headers['access-control-expose-headers']);
  for (const name of ['x-correlation-id', 'retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'])
    assert.ok(exposed.includes(name), `${name} is exposed`);
  for (const name of ['x-next-cursor', 'content-disposition', 'www-authenticate'])
    assert.ok(exposed.includes(name), `${name} is exposed`);
}

describe('CORS with the default CORS_ORIGINS (*)', () => {
  let t: TestApp;
  let account: ProvisionedAccount;
  before(async () => {
    t = await startTestApp({
      extend(app) {
        app.get('/test/cors-boom', { config: { access: 'public' } }, async () => {
          throw new Error('an unexpected failure');
        });
        app.get('/test/cors-unavailable', { config: { access: 'public' } }, async () => {
          throw new AppError(503, 'DATABASE_UNAVAILABLE', 'The database is unavailable.', [], { 'retry-after': '1' });
        });
      },
    });
    account = await provisionAccount(t);
  });
  after(() => t.close());

  it('answers the token endpoint’s preflight 204 with the methods, headers and max-age (the sign-in bug)', async () => {
    const response = await preflight(t, '/auth/token', PMS, 'POST', 'content-type');
    assert.equal(response.statusCode, 204, response.body);
    assert.equal(response.body, '');
    assert.equal(response.headers['access-control-allow-origin'], '*');
    assert.equal(response.headers['access-control-allow-credentials'], undefined);
    assert.ok(list(response.headers['access-control-allow-methods']).includes('post'));
    assert.deepEqual(list(response.headers['access-control-allow-headers']), [...CORS_ALLOWED_HEADERS]);
    assert.equal(response.headers['access-control-max-age'], String(CORS_MAX_AGE_SECONDS));
    // The same for every origin: nothing to vary on.
    assert.doesNotMatch(String(response.headers.vary ?? ''), /origin/i);
  });

  it('answers the preflight of a protected route without asking for a token (never 401)', async () => {
    for (const [url, method] of [
      [`/facilities/${account.facilities[0]!.id}/visitors`, 'POST'],
      ['/facilities', 'GET'],
      ['/api/3/cancelauctions', 'PUT'],
      ['/gatewayevents', 'GET'],
    ] as const) {
      const response = await preflight(t, url, PMS, method, 'authorization, api-version, content-type');
      assert.equal(response.statusCode, 204, `${method} ${url}: ${response.body}`);
      assert.equal(response.headers['access-control-allow-origin'], '*');
      assert.ok(list(response.headers['access-control-allow-methods']).includes(method.toLowerCase()));
      assert.equal(response.headers['www-authenticate'], undefined);
    }
  });

  it('carries the headers on a real 200 and on the token endpoint’s own answers and RFC 6749 errors', async () => {
    const ok = await t.app.inject({
      method: 'GET',
      url: '/facilities',
      headers: { origin: PMS, ...bearer(account.token) },
    });
    assert.equal(ok.statusCode, 200);
    assertReadableBy(ok.headers, PMS, '*');
    assert.ok(ok.headers['ratelimit-limit']);

    const signIn = await t.app.inject({
      method: 'POST',
      url: '/auth/token',
      headers: { origin: PMS, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'password',
        client_id: account.pms.clientId,
        client_secret: account.pms.clientSecret,
        username: account.key.apiKey,
        password: account.key.apiSecret,
      }).toString(),
    });
    assert.equal(signIn.statusCode, 200, signIn.body);
    assertReadableBy(signIn.headers, PMS, '*');

    const refused = await t.app.inject({
      method: 'POST',
      url: '/auth/token',
      headers: { origin: PMS, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=client_credentials&client_id=nobody&client_secret=wrong',
    });
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.json().error, 'invalid_client');
    assertReadableBy(refused.headers, PMS, '*');
  });

  it('carries the headers on 401, 404, 500 and 503 problem+json answers', async () => {
    const cases: [string, Record<string, string>, number][] = [
      ['/facilities', {}, 401],
      ['/facilities', { authorization: 'Bearer not-a-token' }, 401],
      ['/no/such/route', {}, 404],
      [`/facilities/${'9'.repeat(12)}`, bearer(account.token), 404],
      ['/test/cors-boom', {}, 500],
      ['/test/cors-unavailable', {}, 503],
    ];
    for (const [url, headers, status] of cases) {
      const response = await t.app.inject({ method: 'GET', url, headers: { origin: PMS, ...headers } });
      assert.equal(response.statusCode, status, `${url}: ${response.body}`);
      assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
      assertReadableBy(response.headers, PMS, '*');
    }
  });

  it('carries the headers on an error of the router itself (a bad percent-encoding)', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/facilities/%E0%A4%A', headers: { origin: PMS } });
    assert.equal(response.statusCode, 400, response.body);
    assertReadableBy(response.headers, PMS, '*');
  });

  it('lists exactly the documented exposed headers', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/health', headers: { origin: PMS } });
    assert.deepEqual(list(response.headers['access-control-expose-headers']), [...CORS_EXPOSED_HEADERS]);
  });
});

describe('CORS with a list of origins', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { CORS_ORIGINS: `${PMS}, ${DEV}`, RATE_LIMIT_PER_MINUTE: '5' } });
  });
  after(() => t.close());

  it('echoes a listed origin on the preflight, with Vary: Origin', async () => {
    for (const origin of [PMS, DEV]) {
      const response = await preflight(t, '/auth/token', origin, 'POST', 'content-type');
      assert.equal(response.statusCode, 204);
      assert.equal(response.headers['access-control-allow-origin'], origin);
      assert.match(String(response.headers.vary), /\borigin\b/i);
      assert.equal(response.headers['access-control-allow-credentials'], undefined);
    }
  });

  it('gives an origin that is not listed no Access-Control-Allow-Origin, on the preflight or the answer', async () => {
    const refused = await preflight(t, '/auth/token', EVIL, 'POST', 'content-type');
    assert.equal(refused.headers['access-control-allow-origin'], undefined);
    assert.match(String(refused.headers.vary), /\borigin\b/i);
    // A listed origin differing only by a path, a port or the scheme is another origin.
    for (const origin of [`${PMS}:8443`, 'http://pms.example.com', 'https://pms.example.com.evil.net']) {
      const response = await t.app.inject({ method: 'GET', url: '/health', headers: { origin } });
      assert.equal(response.headers['access-control-allow-origin'], undefined, origin);
    }
    const plain = await t.app.inject({ method: 'GET', url: '/health' });
    assert.equal(plain.headers['access-control-allow-origin'], undefined);
    const routerError = await t.app.inject({ method: 'GET', url: '/facilities/%E0%A4%A', headers: { origin: EVIL } });
    assert.equal(routerError.statusCode, 400);
    assert.equal(routerError.headers['access-control-allow-origin'], undefined);
    assert.match(String(routerError.headers.vary), /\borigin\b/i);
  });

  it('echoes a listed origin on an answer and on a 429 with its Retry-After', async () => {
    const ok = await t.app.inject({ method: 'GET', url: '/availability', headers: { origin: DEV } });
    assertReadableBy(ok.headers, DEV, 'echo');
    assert.match(String(ok.headers.vary), /\borigin\b/i);
    const routerError = await t.app.inject({ method: 'GET', url: '/facilities/%E0%A4%A', headers: { origin: DEV } });
    assert.equal(routerError.statusCode, 400);
    assertReadableBy(routerError.headers, DEV, 'echo');
    let limited: Awaited<ReturnType<typeof t.app.inject>> | undefined;
    for (let i = 0; i < 10 && !limited; i++) {
      const response = await t.app.inject({ method: 'GET', url: '/facilities', headers: { origin: DEV } });
      if (response.statusCode === 429) limited = response;
      else assert.equal(response.statusCode, 401);
    }
    assert.ok(limited, 'the limit of 5 a minute was reached');
    assert.ok(limited.headers['retry-after']);
    assertReadableBy(limited.headers, DEV, 'echo');
    // A preflight is answered before the limiter: still 204 when the caller is limited.
    const again = await preflight(t, '/facilities', DEV, 'GET', 'authorization');
    assert.equal(again.statusCode, 204);
    assert.equal(again.headers['access-control-allow-origin'], DEV);
  });
});

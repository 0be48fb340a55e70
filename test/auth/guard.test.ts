// The guard: 401 for every kind of bad token, 403 for a missing scope, 404 for what the token may
// not see (indistinguishable from a real not-found), revocation, key rotation.
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Type } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { base64url, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { loadSigningKeys, rotateSigningKey } from '../../src/auth/keys.ts';
import { RECHECK_MS } from '../../src/auth/credential-status.ts';
import { TOKEN_CLOCK_TOLERANCE_SECONDS, TokenService } from '../../src/auth/tokens.ts';
import { requireAccessDeclarations } from '../../src/http/access.ts';
import { facilityOf, principalOf } from '../../src/http/caller.ts';
import { ManualClock, startTestApp, type TestApp } from '../helpers/harness.ts';
import {
  bearer,
  gatewayToken,
  partnerToken,
  provisionAccount,
  requestToken,
  type ProvisionedAccount,
} from '../helpers/tenants.ts';

let t: TestApp;
const clock = new ManualClock();
let a: ProvisionedAccount;
let b: ProvisionedAccount;

before(async () => {
  t = await startTestApp({
    clock,
    extend(app) {
      app.get(
        '/test/accounts/:accountId',
        {
          config: { access: { scopes: ['accessevent:read'], accountParam: 'accountId' } },
          schema: { params: Type.Object({ accountId: Type.String() }) },
        },
        async (request) => ({
          kind: principalOf(request).kind,
        }),
      );
      app.get(
        '/test/facilities/:facilityId',
        {
          config: { access: { scopes: ['accessevent:read', 'auctions:read', 'gateway'], facilityParam: 'facilityId' } },
        },
        async (request) => ({
          facility: facilityOf(request).id,
        }),
      );
      app.get('/test/pms-only', { config: { access: { scopes: ['accesscontrol:read'] } } }, async () => ({ ok: true }));
    },
  });
  a = await provisionAccount(t, { facilities: 2 });
  b = await provisionAccount(t, { facilities: 1 });
});
after(() => t.close());

const get = (url: string, token?: string) => t.app.inject({ method: 'GET', url, headers: token ? bearer(token) : {} });

function assertInvalidToken(response: {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
  json(): any;
}) {
  assert.equal(response.statusCode, 401, response.body);
  assert.match(String(response.headers['www-authenticate']), /^Bearer realm="gatehouse", error="invalid_token"/);
  assert.equal(response.json().code, 'INVALID_TOKEN');
}

async function forge(
  claims: Record<string, unknown>,
  options: { expiresIn?: string | number; audience?: string; key?: 'ours' | 'foreign'; issuedAt?: number } = {},
) {
  const keys = await loadSigningKeys(t.config);
  const key = options.key === 'foreign' ? (await generateKeyPair('ES256')).privateKey : keys.current.privateKey;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: keys.current.kid })
    .setIssuer('gatehouse')
    .setAudience(options.audience ?? 'gatehouse')
    .setSubject(`account:${a.accountId}`)
    .setIssuedAt(options.issuedAt)
    .setJti(randomUUID())
    .setExpirationTime(options.expiresIn ?? '1h')
    .sign(key);
}

const goodClaims = () => {
  const payload = JSON.parse(Buffer.from(a.token.split('.')[1]!, 'base64url').toString());
  const { iss: _i, aud: _a, sub: _s, iat: _t, exp: _e, jti: _j, ...claims } = payload;
  return claims;
};

describe('401 for a missing or bad token', () => {
  it('no token, a malformed header, a token that is not a JWT', async () => {
    assertInvalidToken(await get(`/test/accounts/${a.accountId}`));
    assertInvalidToken(
      await t.app.inject({
        method: 'GET',
        url: `/test/accounts/${a.accountId}`,
        headers: { authorization: 'Token abc' },
      }),
    );
    assertInvalidToken(await get(`/test/accounts/${a.accountId}`, 'not.a.jwt'));
  });

  it('a forged token with our key is accepted (the control), and the same one expired is not', async () => {
    assert.equal((await get(`/test/accounts/${a.accountId}`, await forge(goodClaims()))).statusCode, 200);
    const expired = await forge(goodClaims(), { expiresIn: Math.floor(Date.now() / 1000) - 10 });
    const response = await get(`/test/accounts/${a.accountId}`, expired);
    assertInvalidToken(response);
    assert.match(response.json().detail, /expired/);
  });

  it('a token of our key issued a year ahead (iat in the future beyond the clock tolerance); a minute ahead is accepted', async () => {
    const now = Math.floor(Date.now() / 1000);
    const yearAhead = now + 365 * 86_400;
    const future = await forge(goodClaims(), { issuedAt: yearAhead, expiresIn: yearAhead + 3600 });
    const response = await get(`/test/accounts/${a.accountId}`, future);
    assertInvalidToken(response);
    assert.match(response.json().detail, /not valid/);
    // Within the tolerance (instances' clocks differ a little): accepted.
    const skewed = await forge(goodClaims(), { issuedAt: now + TOKEN_CLOCK_TOLERANCE_SECONDS - 5 });
    assert.equal((await get(`/test/accounts/${a.accountId}`, skewed)).statusCode, 200);
    const beyond = await forge(goodClaims(), { issuedAt: now + TOKEN_CLOCK_TOLERANCE_SECONDS + 30 });
    assertInvalidToken(await get(`/test/accounts/${a.accountId}`, beyond));
  });

  it('a token signed by another key, or for another audience', async () => {
    assertInvalidToken(await get(`/test/accounts/${a.accountId}`, await forge(goodClaims(), { key: 'foreign' })));
    assertInvalidToken(
      await get(`/test/accounts/${a.accountId}`, await forge(goodClaims(), { audience: 'someone-else' })),
    );
  });

  it('alg none', async () => {
    const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }));
    const [, payload] = a.token.split('.');
    assertInvalidToken(await get(`/test/accounts/${a.accountId}`, `${header}.${payload}.`));
  });

  it('HS256 signed with the public key as the secret', async () => {
    const keys = await loadSigningKeys(t.config);
    const publicJwk = JSON.stringify(keys.publicJwks[0]);
    const header = base64url.encode(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: keys.current.kid }));
    const [, payload] = a.token.split('.');
    for (const secret of [publicJwk, JSON.stringify(await exportJWK((await generateKeyPair('ES256')).publicKey))]) {
      const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
      assertInvalidToken(await get(`/test/accounts/${a.accountId}`, `${header}.${payload}.${signature}`));
    }
  });

  it('a tampered payload (another account id under the original signature)', async () => {
    const [header, payload, signature] = a.token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    claims.account_id = b.accountId;
    const tampered = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
    assertInvalidToken(await get(`/test/accounts/${b.accountId}`, tampered));
  });
});

describe('403 for a missing scope, 404 for what is not visible', () => {
  it('a gateway token on a PMS route is 403 with an insufficient_scope challenge', async () => {
    const gateway = await gatewayToken(t, a.facilities[0]!.id);
    const response = await get('/test/pms-only', gateway.token);
    assert.equal(response.statusCode, 403);
    assert.match(String(response.headers['www-authenticate']), /error="insufficient_scope"/);
    assert.equal(response.json().code, 'INSUFFICIENT_SCOPE');
  });

  it("account A's token on account B's routes is 404, the same body as a real not-found", async () => {
    assert.equal((await get(`/test/accounts/${a.accountId}`, a.token)).statusCode, 200);
    const foreign = await get(`/test/accounts/${b.accountId}`, a.token);
    const missing = await get(`/test/accounts/${b.accountId + 1000}`, a.token);
    assert.equal(foreign.statusCode, 404);
    const strip = (body: string) => ({ ...JSON.parse(body), traceId: undefined });
    assert.deepEqual(strip(foreign.body), strip(missing.body));
    assert.equal((await get(`/test/facilities/${b.facilities[0]!.id}`, a.token)).statusCode, 404);
    assert.deepEqual(
      strip((await get(`/test/facilities/${b.facilities[0]!.id}`, a.token)).body),
      strip((await get(`/test/facilities/${b.facilities[0]!.id + 1000}`, a.token)).body),
    );
    assert.equal((await get(`/test/facilities/not-an-id`, a.token)).statusCode, 404);
    assert.equal((await get(`/test/facilities/${a.facilities[1]!.id}`, a.token)).statusCode, 200);
  });

  it('a partner sees only its assigned facilities; a gateway only its own', async () => {
    const partner = await partnerToken(t, 'AcmePMS', [a.facilities[0]!.guid!]);
    assert.equal((await get(`/test/facilities/${a.facilities[0]!.id}`, partner.token)).statusCode, 200);
    assert.equal((await get(`/test/facilities/${a.facilities[1]!.id}`, partner.token)).statusCode, 404);
    const gateway = await gatewayToken(t, a.facilities[1]!.id);
    assert.equal((await get(`/test/facilities/${a.facilities[1]!.id}`, gateway.token)).statusCode, 200);
    assert.equal((await get(`/test/facilities/${a.facilities[0]!.id}`, gateway.token)).statusCode, 404);
  });
});

describe('revocation and key rotation', () => {
  it('a revoked account key gets no new token at once, and its tokens stop within 5 seconds', async () => {
    const c = await provisionAccount(t);
    assert.equal((await get(`/test/accounts/${c.accountId}`, c.token)).statusCode, 200);
    await t.services.tenancy.revokeAccountKey(c.key.apiKey);
    const again = await requestToken(t, {
      grant_type: 'password',
      client_id: c.pms.clientId,
      client_secret: c.pms.clientSecret,
      username: c.key.apiKey,
      password: c.key.apiSecret,
    });
    assert.equal(again.status, 400);
    const refresh = await requestToken(t, {
      grant_type: 'refresh_token',
      client_id: c.pms.clientId,
      client_secret: c.pms.clientSecret,
      refresh_token: c.refreshToken,
    });
    assert.equal(refresh.status, 400);
    // Within the re-check interval the guard may still trust its last look; past it, it asks again.
    clock.advance(RECHECK_MS - 1);
    assert.equal((await get(`/test/accounts/${c.accountId}`, c.token)).statusCode, 200, 'trusted until the re-check');
    clock.advance(2);
    assertInvalidToken(await get(`/test/accounts/${c.accountId}`, c.token));
  });

  it('after a rotation, new tokens carry the new key and tokens signed before still verify', async () => {
    const before = await loadSigningKeys(t.config);
    const oldService = new TokenService(before, t.config);
    const oldToken = (
      await oldService.issue({ kind: 'operator', credentialId: randomUUID(), clientId: 'app_x', scopes: ['admin'] })
    ).accessToken;
    const { kid } = await rotateSigningKey(t.config.dataDir);
    const after = await loadSigningKeys(t.config); // what the next start loads
    assert.equal(after.current.kid, kid);
    assert.deepEqual(after.publicJwks.map((k) => k.kid).sort(), [before.current.kid, kid].sort());
    const restarted = new TokenService(after, t.config);
    assert.equal((await restarted.verify(oldToken)).kind, 'operator');
    const fresh = await restarted.issue({
      kind: 'operator',
      credentialId: randomUUID(),
      clientId: 'app_x',
      scopes: ['admin'],
    });
    assert.equal(JSON.parse(Buffer.from(fresh.accessToken.split('.')[0]!, 'base64url').toString()).kid, kid);
    assert.ok(fs.existsSync(t.config.dataDir));
  });
});

describe('every route states its needs', () => {
  it('a route without config.access cannot be added', async () => {
    const app = Fastify();
    requireAccessDeclarations(app as never, []);
    assert.throws(() => app.get('/sneaky', async () => 'open'), /route GET \/sneaky does not declare config.access/);
    app.get('/declared', { config: { access: 'public' } }, async () => 'open');
    await app.ready();
  });

  it('the OpenAPI document shows, on every route, its security (with the scopes) and the error answers of the shared mechanisms', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/swagger/v3.0.json' })).json();
    let protectedCount = 0;
    let publicCount = 0;
    type Operation = {
      security?: Record<string, string[]>[];
      responses: Record<string, { content?: Record<string, { schema: { $ref?: string; properties?: object } }> }>;
    };
    for (const [path, operations] of Object.entries<Record<string, Operation>>(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const where = `${method.toUpperCase()} ${path}`;
        assert.ok(Array.isArray(operation.security), `${where} declares no security`);
        assert.ok(operation.responses['429'] && operation.responses['503'], `${where} does not document 429 and 503`);
        if (operation.security.length === 0) {
          publicCount++;
          continue;
        }
        protectedCount++;
        // Either scheme: the OAuth 2.0 login (Swagger UI's "Authorize") or a pasted bearer token.
        const scopes = operation.security[0]!.oauth2!;
        assert.ok(scopes.length > 0, `${where} names no scope`);
        assert.deepEqual(operation.security, [{ oauth2: scopes }, { bearerAuth: scopes }], where);
        for (const status of ['401', '403'])
          assert.ok(operation.responses[status], `${where} does not document ${status}`);
        // The body of the face's renderer: the envelope under /api/3, problem+json elsewhere.
        const schema = Object.values(operation.responses['401']!.content ?? {})[0]?.schema ?? {};
        // The error body is a named schema: the operation refers to it in components.schemas.
        const named = schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()!] : schema;
        const body = named.properties ?? {};
        assert.ok(
          path.startsWith('/api/3/') ? 'meta' in body : 'traceId' in body,
          `${where}: 401 body is not the face's error body`,
        );
      }
    }
    assert.ok(protectedCount >= 10, `${protectedCount} protected operations`);
    assert.ok(publicCount >= 4, `${publicCount} public operations`);
    assert.ok(doc.components.securitySchemes.bearerAuth);
    const token = doc.paths['/auth/token'].post;
    assert.deepEqual(token.security, []);
    assert.equal(
      Object.values<{ schema: { $ref: string } }>(token.responses['400'].content)[0]!.schema.$ref,
      '#/components/schemas/OAuthError',
      'the token endpoint documents RFC 6749 errors',
    );
    assert.ok('error' in doc.components.schemas.OAuthError.properties);
  });

  it('every response of a routed request carries the RateLimit headers', async () => {
    const response = await get(`/test/accounts/${a.accountId}`, a.token);
    assert.ok(response.headers['ratelimit-limit']);
    assert.ok(response.headers['ratelimit-remaining']);
    assert.ok(response.headers['ratelimit-reset']);
  });
});

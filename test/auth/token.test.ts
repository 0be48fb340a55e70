// POST /auth/token: every grant, client authentication, RFC 6749 errors, refresh rotation, throttling.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { ok, typedClient } from '../helpers/client.ts';
import { ManualClock } from '../helpers/harness.ts';
import { requestToken, tenantFixture } from '../helpers/tenants.ts';

const clock = new ManualClock();
const site = tenantFixture({
  clock,
  env: { TOKEN_FAILURE_LIMIT: '10', TOKEN_FAILURE_WINDOW_SECONDS: '2', RATE_LIMIT_PER_MINUTE: '1000000' },
});
const { t } = site;

const passwordForm = () => ({
  grant_type: 'password',
  client_id: site.account.pms.clientId,
  client_secret: site.account.pms.clientSecret,
  username: site.account.key.apiKey,
  password: site.account.key.apiSecret,
});

function assertOAuthError(
  response: { status: number; body: any; headers: Record<string, unknown> },
  status: number,
  error: string,
) {
  assert.equal(response.status, status, JSON.stringify(response.body));
  assert.equal(response.body.error, error);
  assert.equal(typeof response.body.error_description, 'string');
  assert.deepEqual(Object.keys(response.body).sort(), ['error', 'error_description']);
  assert.equal(response.headers['cache-control'], 'no-store');
}

describe('password grant', () => {
  it('issues an ES256 JWT for the account with the documented claims', async () => {
    const response = await requestToken(t, passwordForm());
    assert.equal(response.status, 200);
    assert.equal(response.headers['cache-control'], 'no-store');
    const body = response.body;
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.expires_in, 3600);
    assert.equal(body.scope, 'accesscontrol:read accesscontrol:write accessevent:read webhooks');
    assert.match(body.refresh_token, /^gh_rt_/);
    const header = decodeProtectedHeader(body.access_token);
    assert.equal(header.alg, 'ES256');
    assert.equal(typeof header.kid, 'string');
    const claims = decodeJwt(body.access_token);
    assert.equal(claims.iss, 'gatehouse');
    assert.equal(claims.aud, 'gatehouse');
    assert.equal(claims.sub, `account:${site.account.accountId}`);
    assert.equal(claims.account_id, site.account.accountId);
    assert.equal(claims.exp! - claims.iat!, 3600);
    assert.equal(typeof claims.jti, 'string');
  });

  it('accepts a JSON body and HTTP Basic client authentication', async () => {
    await ok(typedClient(t).POST('/auth/token', { body: passwordForm() }), 200);
    const basic = Buffer.from(
      `${encodeURIComponent(site.account.pms.clientId)}:${encodeURIComponent(site.account.pms.clientSecret)}`,
    ).toString('base64');
    const viaBasic = typedClient(t).POST('/auth/token', {
      body: { grant_type: 'password', username: site.account.key.apiKey, password: site.account.key.apiSecret },
      bodySerializer: (fields) => new URLSearchParams(fields as Record<string, string>).toString(),
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    });
    await ok(viaBasic, 200);
  });

  it('narrows to the scopes asked for, and refuses more than the key allows', async () => {
    const narrowed = await requestToken(t, { ...passwordForm(), scope: 'accessevent:read' });
    assert.equal(narrowed.body.scope, 'accessevent:read');
    assertOAuthError(await requestToken(t, { ...passwordForm(), scope: 'admin' }), 400, 'invalid_scope');
  });

  it('grants every scope of the key for an empty scope, as Swagger UI sends when none is ticked', async () => {
    const all = await requestToken(t, passwordForm());
    const empty = await requestToken(t, { ...passwordForm(), scope: '' });
    assert.equal(empty.status, 200, JSON.stringify(empty.body));
    assert.equal(empty.body.scope, all.body.scope);
    assert.ok(empty.body.scope.split(' ').length > 1, empty.body.scope);
  });

  it("refuses a wrong API secret, an unknown API key, and another application's account key", async () => {
    assertOAuthError(await requestToken(t, { ...passwordForm(), password: 'gh_as_wrong' }), 400, 'invalid_grant');
    assertOAuthError(await requestToken(t, { ...passwordForm(), username: 'key_nope' }), 400, 'invalid_grant');
    const otherApp = await t.services.tenancy.createApplication({ name: 'Other PMS' });
    assertOAuthError(
      await requestToken(t, { ...passwordForm(), client_id: otherApp.clientId, client_secret: otherApp.clientSecret }),
      400,
      'invalid_grant',
    );
  });
});

describe('client authentication and request errors', () => {
  it('refuses a wrong client secret, an unknown client and none, sent in the body, with 400 invalid_client (RFC 6749 §5.2, as the incumbent answers)', async () => {
    for (const form of [
      { ...passwordForm(), client_secret: 'gh_cs_wrong' },
      { ...passwordForm(), client_id: 'app_unknown' },
      { grant_type: 'client_credentials' },
    ]) {
      const answer = await requestToken(t, form);
      assertOAuthError(answer, 400, 'invalid_client');
      assert.equal(answer.headers['www-authenticate'], undefined, 'no challenge: the client did not use the header');
    }
  });

  it('answers a failed Basic authentication with a Basic challenge', async () => {
    const basic = Buffer.from(`${site.account.pms.clientId}:wrong`).toString('base64');
    const { response } = await typedClient(t).POST('/auth/token', {
      body: { grant_type: 'client_credentials' },
      headers: { authorization: `Basic ${basic}` },
    });
    assert.equal(response.status, 401);
    assert.match(String(response.headers.get('www-authenticate')), /^Basic /);
  });

  it('names unsupported and missing grant types', async () => {
    assertOAuthError(
      await requestToken(t, { ...passwordForm(), grant_type: 'implicit' }),
      400,
      'unsupported_grant_type',
    );
    const { grant_type: _omit, ...noGrant } = passwordForm();
    assertOAuthError(await requestToken(t, noGrant), 400, 'invalid_request');
  });

  it('refuses client_credentials for a PMS application (it acts for accounts)', async () => {
    assertOAuthError(
      await requestToken(t, {
        grant_type: 'client_credentials',
        client_id: site.account.pms.clientId,
        client_secret: site.account.pms.clientSecret,
      }),
      400,
      'unauthorized_client',
    );
  });

  it('answers malformed and oversized bodies with an RFC 6749 error, never problem+json', async () => {
    // Raw inject: the JSON is cut short on purpose.
    const malformed = await t.app.inject({
      method: 'POST',
      url: '/auth/token',
      headers: { 'content-type': 'application/json' },
      payload: '{"grant_type":',
    });
    assert.equal(malformed.statusCode, 400);
    assert.equal(malformed.json().error, 'invalid_request');
    const tooLong = await requestToken(t, { ...passwordForm(), username: 'k'.repeat(5000) });
    assertOAuthError(tooLong, 400, 'invalid_request');
  });

  it('treats SQL and control characters in every field as plain wrong values', async () => {
    // A fresh client and address per attempt, so that throttling does not answer for the checks.
    let n = 0;
    const attempt = (form: Record<string, string>) =>
      t.app
        .inject({
          method: 'POST',
          url: '/auth/token',
          payload: form,
          remoteAddress: `10.9.${Math.floor(++n / 250)}.${n % 250}`,
        })
        .then((r) => ({ status: r.statusCode, body: r.json() }));
    const hostile = ["' or '1'='1", '"; drop table accounts; --', 'a\u0000b\r\n\u0007', '%00', '\\x27'];
    for (const value of hostile) {
      const pms = await t.services.tenancy.createApplication({ name: 'Hostile test PMS' });
      const key = await t.services.tenancy.createAccountKey({
        accountId: site.account.accountId,
        clientId: pms.clientId,
      });
      const valid = {
        grant_type: 'password',
        client_id: pms.clientId,
        client_secret: pms.clientSecret,
        username: key.apiKey,
        password: key.apiSecret,
      };
      for (const field of [
        'client_id',
        'client_secret',
        'username',
        'password',
        'refresh_token',
        'scope',
        'grant_type',
      ]) {
        const form = { ...valid, grant_type: field === 'refresh_token' ? 'refresh_token' : 'password', [field]: value };
        const response = await attempt(form);
        assert.ok([400, 401].includes(response.status), `${field}=${JSON.stringify(value)} → ${response.status}`);
        assert.equal(typeof response.body.error, 'string');
      }
    }
    const { rows } = await t.services.database.pool.query('select count(*)::int as n from accounts');
    assert.ok(rows[0].n >= 1, 'the accounts table is still there');
  });
});

describe('client_credentials grant', () => {
  it('gives a partner its client type, facilities and auction scopes', async () => {
    const partner = await t.services.tenancy.createApplication({
      name: 'Bidders',
      clientType: 'AcmePMS',
      facilityGuids: [site.account.facilities[0]!.guid!],
    });
    const response = await requestToken(t, {
      grant_type: 'client_credentials',
      client_id: partner.clientId,
      client_secret: partner.clientSecret,
    });
    assert.equal(response.status, 200);
    assert.equal(response.body.scope, 'auctions:write auctions:read webhooks');
    assert.equal(response.body.refresh_token, undefined, 'no refresh token for client_credentials (RFC 6749 §4.4.3)');
    const claims = decodeJwt(response.body.access_token);
    assert.equal(claims.client_type, 'AcmePMS');
    assert.deepEqual(claims.facility_guids, [site.account.facilities[0]!.guid]);
  });

  it('gives a gateway controller its facility and the gateway scope', async () => {
    const gateway = await t.services.tenancy.createGatewayCredential({
      facilityId: site.account.facilities[0]!.id,
    });
    const response = await requestToken(t, {
      grant_type: 'client_credentials',
      client_id: gateway.clientId,
      client_secret: gateway.clientSecret,
    });
    assert.equal(response.status, 200);
    assert.equal(response.body.scope, 'gateway');
    const claims = decodeJwt(response.body.access_token);
    assert.equal(claims.facility_id, site.account.facilities[0]!.id);
    assert.equal(claims.account_id, site.account.accountId);
  });

  it('gives an operator the admin scope', async () => {
    const operator = await t.services.tenancy.createApplication({ name: 'Ops', operator: true });
    const response = await requestToken(t, {
      grant_type: 'client_credentials',
      client_id: operator.clientId,
      client_secret: operator.clientSecret,
    });
    assert.equal(response.body.scope, 'admin');
  });
});

describe('refresh_token grant', () => {
  it('rotates: a refresh token works once, and its successor works', async () => {
    const first = await requestToken(t, passwordForm());
    const second = await requestToken(t, {
      grant_type: 'refresh_token',
      client_id: site.account.pms.clientId,
      client_secret: site.account.pms.clientSecret,
      refresh_token: first.body.refresh_token,
    });
    assert.equal(second.status, 200);
    assert.notEqual(second.body.refresh_token, first.body.refresh_token);
    assert.equal(decodeJwt(second.body.access_token).account_id, site.account.accountId);
    const third = await requestToken(t, {
      grant_type: 'refresh_token',
      client_id: site.account.pms.clientId,
      client_secret: site.account.pms.clientSecret,
      refresh_token: second.body.refresh_token,
    });
    assert.equal(third.status, 200);
  });

  it('refuses a reused refresh token and revokes its whole family', async () => {
    const first = await requestToken(t, passwordForm());
    const refresh = (token: string) =>
      requestToken(t, {
        grant_type: 'refresh_token',
        client_id: site.account.pms.clientId,
        client_secret: site.account.pms.clientSecret,
        refresh_token: token,
      });
    const second = await refresh(first.body.refresh_token);
    assert.equal(second.status, 200);
    assertOAuthError(await refresh(first.body.refresh_token), 400, 'invalid_grant');
    assertOAuthError(await refresh(second.body.refresh_token), 400, 'invalid_grant');
  });

  it('refuses a refresh token presented by another client', async () => {
    const first = await requestToken(t, passwordForm());
    const other = await t.services.tenancy.createApplication({ name: 'Thief' });
    assertOAuthError(
      await requestToken(t, {
        grant_type: 'refresh_token',
        client_id: other.clientId,
        client_secret: other.clientSecret,
        refresh_token: first.body.refresh_token,
      }),
      400,
      'invalid_grant',
    );
  });
});

describe('throttling of failed token requests', () => {
  it('throttles 400 wrong passwords in a row, and a right one works after the window', async () => {
    // A client of its own, so that the other tests' clients are not throttled by this one.
    const pms = await t.services.tenancy.createApplication({ name: 'Throttled PMS' });
    const key = await t.services.tenancy.createAccountKey({
      accountId: site.account.accountId,
      clientId: pms.clientId,
    });
    const form = {
      grant_type: 'password',
      client_id: pms.clientId,
      client_secret: pms.clientSecret,
      username: key.apiKey,
      password: key.apiSecret,
    };
    const wrong = { ...form, password: 'gh_as_guess' };
    // Raw inject: the request comes from a chosen address (the typed client cannot say one).
    const fromThere = (fields: Record<string, string>) =>
      t.app.inject({ method: 'POST', url: '/auth/token', payload: fields, remoteAddress: '203.0.113.7' });
    // 400 wrong passwords from one address — forty times the limit — 200 at once, all in one window
    // (the clock stands still): the throttle counts before it checks, so at most the limit of them
    // are ever checked, however many arrive together.
    const SENT = 400;
    let checked = 0;
    let retryAfter = 0;
    for (let sent = 0; sent < SENT; sent += 200) {
      const answers = await Promise.all(Array.from({ length: 200 }, () => fromThere(wrong)));
      for (const response of answers) {
        if (response.statusCode === 429) {
          retryAfter = Number(response.headers['retry-after']);
          assert.equal(response.json().error, 'invalid_request');
        } else {
          assert.equal(response.statusCode, 400);
          checked++;
        }
      }
    }
    assert.ok(checked <= 10, `${checked} of ${SENT} wrong passwords were checked`);
    assert.ok(retryAfter >= 1 && retryAfter <= 2, `Retry-After ${retryAfter}`);
    const blocked = await fromThere(form);
    assert.equal(blocked.statusCode, 429, 'the right password is refused from the address that failed');
    // A client id is no lockout lever: the client still works from any other address.
    assert.equal((await requestToken(t, form)).status, 200, 'the same client from another address');
    assert.equal((await requestToken(t, passwordForm())).status, 200, 'other clients are not affected');
    clock.advance(2_100); // past the 2 s window
    const right = await fromThere(form);
    assert.equal(right.statusCode, 200, right.body);
  });

  it('counts stale refresh tokens per grant: 12 of them never lock the same PMS out of its password grant', async () => {
    const pms = await t.services.tenancy.createApplication({ name: 'PMS with a stale token store' });
    const key = await t.services.tenancy.createAccountKey({
      accountId: site.account.accountId,
      clientId: pms.clientId,
    });
    const client = { client_id: pms.clientId, client_secret: pms.clientSecret };
    const password = { grant_type: 'password', ...client, username: key.apiKey, password: key.apiSecret };
    const fromThere = (fields: Record<string, string>) =>
      t.app.inject({ method: 'POST', url: '/auth/token', payload: fields, remoteAddress: '203.0.113.8' });
    // Refresh tokens the PMS used already (it kept the old ones), then presents again: each is
    // invalid_grant with the right client secret.
    const stale: string[] = [];
    for (let i = 0; i < 12; i++) {
      const issued = (await fromThere(password)).json();
      const rotated = await fromThere({ grant_type: 'refresh_token', ...client, refresh_token: issued.refresh_token });
      assert.equal(rotated.statusCode, 200, rotated.body);
      stale.push(issued.refresh_token);
    }
    const answers = [];
    for (const token of stale)
      answers.push((await fromThere({ grant_type: 'refresh_token', ...client, refresh_token: token })).statusCode);
    // The refresh grant is throttled after 10 failures (guessing refresh tokens stays bounded)…
    assert.deepEqual(answers, [...Array(10).fill(400), 429, 429]);
    // …but the client authenticated every time: its password grant from the same address works.
    const right = await fromThere(password);
    assert.equal(right.statusCode, 200, right.body);
    // Wrong client secrets still throttle the client at that address, as before.
    for (let i = 0; i < 10; i++)
      assert.equal((await fromThere({ ...password, client_secret: 'gh_cs_wrong' })).statusCode, 400);
    assert.equal((await fromThere(password)).statusCode, 429, 'wrong client secrets throttle the client as before');
  });
});

describe('JWKS', () => {
  it('publishes the public key that verifies the tokens, and no private part', async () => {
    const { keys } = await ok(typedClient(t).GET('/.well-known/jwks.json'), 200);
    const token = (await requestToken(t, passwordForm())).body.access_token;
    const kid = decodeProtectedHeader(token).kid;
    const key = keys.find((k: { kid: string }) => k.kid === kid);
    assert.ok(key);
    assert.equal(key.kty, 'EC');
    assert.equal(key.crv, 'P-256');
    assert.equal(key.d, undefined);
  });
});

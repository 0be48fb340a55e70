// The control routes of a sandbox facility's simulated controller (/sandbox/facilities/{id}/…), refused:
// on a production facility (404), with a production credential on a sandbox's facility (404), an unknown
// event type (400 naming eventType), bad values (400 naming each field), past the rate (429 + Retry-After).
// What the controls do at the simulated site is test/sandbox/controllers/ and test/e2e/sandbox.test.ts.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { SANDBOX_CONTROLS_PER_MINUTE } from '../../src/sandbox/schemas.ts';
import { bearer, provisionAccount, requestToken, tenantFixture } from '../helpers/tenants.ts';

const site = tenantFixture({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
const { t } = site;

const call = (method: 'GET' | 'POST' | 'PUT', url: string, token: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });

let owner: Awaited<ReturnType<typeof provisionAccount>>;
let sandboxToken: string;
let sandboxFacility: number;

describe('sandbox controls, refused', () => {
  before(async () => {
    owner = await provisionAccount(t, { name: 'Integrator' });
    const created = await call('POST', '/sandboxes', owner.token, { name: 'Controls', facilities: ['small'] });
    assert.equal(created.statusCode, 201, created.body);
    const sandbox = created.json();
    sandboxFacility = sandbox.facilities[0].id;
    const token = await requestToken(t, {
      grant_type: 'password',
      client_id: owner.pms.clientId,
      client_secret: owner.pms.clientSecret,
      username: sandbox.credentials.accountKey.apiKey,
      password: sandbox.credentials.accountKey.apiSecret,
    });
    assert.equal(token.status, 200);
    sandboxToken = token.body.access_token;
  });

  it('answers its own facility’s controller', async () => {
    const answer = await call('GET', `/sandbox/facilities/${sandboxFacility}/controller`, sandboxToken);
    assert.equal(answer.statusCode, 200, answer.body);
    assert.equal(answer.json().facilityId, sandboxFacility);
    assert.equal(answer.json().online, true);
  });

  it('a production facility is 404, to its own account too', async () => {
    const production = owner.facilities[0]!.id;
    for (const [method, url, body] of [
      ['GET', `/sandbox/facilities/${production}/controller`, undefined],
      ['POST', `/sandbox/facilities/${production}/events`, { eventType: 10 }],
      ['POST', `/sandbox/facilities/${production}/controller/offline`, undefined],
      ['POST', `/sandbox/facilities/${production}/fail-commands`, { count: 1 }],
    ] as const) {
      const answer = await call(method, url, owner.token, body);
      assert.equal(answer.statusCode, 404, `${method} ${url}: ${answer.body}`);
    }
  });

  it('a production credential on a sandbox’s facility is 404 (the owner’s included)', async () => {
    const other = await provisionAccount(t, { name: 'Someone else' });
    for (const token of [owner.token, other.token]) {
      const answer = await call('POST', `/sandbox/facilities/${sandboxFacility}/events`, token, { eventType: 10 });
      assert.equal(answer.statusCode, 404, answer.body);
    }
  });

  it('an unknown event type is 400 naming eventType; bad values name each field', async () => {
    const unknown = await call('POST', `/sandbox/facilities/${sandboxFacility}/events`, sandboxToken, {
      eventType: 9999,
    });
    assert.equal(unknown.statusCode, 400, unknown.body);
    assert.deepEqual(
      unknown.json().errors.map((e: { path: string }) => e.path),
      ['eventType'],
    );
    const several = await call('POST', `/sandbox/facilities/${sandboxFacility}/events`, sandboxToken, {
      eventType: 2,
      details: '',
      unitId: 0,
    });
    assert.equal(several.statusCode, 400, several.body);
    const paths = several.json().errors.map((e: { path: string }) => e.path);
    for (const path of ['eventType', 'details', 'unitId'])
      assert.ok(
        paths.some((p: string) => p.includes(path)),
        `${path} named: ${several.body}`,
      );
    const tooMany = await call('POST', `/sandbox/facilities/${sandboxFacility}/fail-commands`, sandboxToken, {
      count: 1001,
    });
    assert.equal(tooMany.statusCode, 400, tooMany.body);
    assert.match(JSON.stringify(tooMany.json().errors), /count/);
  });

  it(`more than ${SANDBOX_CONTROLS_PER_MINUTE} requests a minute to a control is 429 with Retry-After`, async () => {
    const url = `/sandbox/facilities/${sandboxFacility}/controller/activity`;
    for (let i = 0; i < SANDBOX_CONTROLS_PER_MINUTE; i++) {
      const answer = await call('PUT', url, sandboxToken, { activityPerHour: 30 });
      assert.equal(answer.statusCode, 200, `request ${i + 1}: ${answer.body}`);
    }
    const refused = await call('PUT', url, sandboxToken, { activityPerHour: 30 });
    assert.equal(refused.statusCode, 429, refused.body);
    assert.ok(Number(refused.headers['retry-after']) > 0, JSON.stringify(refused.headers));
    // Another control counts apart.
    const other = await call('GET', `/sandbox/facilities/${sandboxFacility}/controller`, sandboxToken);
    assert.equal(other.statusCode, 200);
  });
});

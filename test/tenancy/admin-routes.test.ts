// The admin HTTP routes: the same operations as `gatehouse admin`, for an operator token only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { bearer, operatorToken, provisionAccount, requestToken } from '../helpers/tenants.ts';

let t: TestApp;
let operator: string;
before(async () => {
  t = await startTestApp();
  operator = await operatorToken(t);
});
after(() => t.close());

const post = (url: string, payload: object, token = operator) =>
  t.app.inject({ method: 'POST', url, payload, headers: bearer(token) });
const get = (url: string, token = operator) => t.app.inject({ method: 'GET', url, headers: bearer(token) });

describe('admin routes', () => {
  it('provision a tenant end to end, and the credentials work', async () => {
    const account = (await post('/admin/accounts', { name: 'Acme Storage' })).json();
    const facility = await post('/admin/facilities', {
      accountId: account.id,
      name: 'Main St',
      timeZone: 'America/Denver',
      guid: 'FAC-ADM-1',
      propertyNumber: '7',
    });
    assert.equal(facility.statusCode, 201);
    assert.deepEqual(
      { ...(facility.json() as object), id: undefined },
      {
        id: undefined,
        accountId: account.id,
        name: 'Main St',
        propertyNumber: '7',
        timeZone: 'America/Denver',
        guid: 'FAC-ADM-1',
        charityEnrolled: false,
      },
    );
    const pms = (await post('/admin/applications', { name: 'Acme PMS' })).json();
    const key = await post('/admin/account-keys', {
      accountId: account.id,
      clientId: pms.clientId,
      scopes: ['accessevent:read'],
    });
    assert.equal(key.statusCode, 201);
    const token = await requestToken(t, {
      grant_type: 'password',
      client_id: pms.clientId,
      client_secret: pms.clientSecret,
      username: key.json().apiKey,
      password: key.json().apiSecret,
    });
    assert.equal(token.status, 200);
    assert.equal(token.body.scope, 'accessevent:read');
    const gateway = await post('/admin/gateways', { facilityId: facility.json().id });
    assert.equal(gateway.statusCode, 201);
    const listed = (await get(`/admin/gateways?facilityId=${facility.json().id}`)).json();
    assert.equal(listed.length, 1);
    assert.equal(listed[0].clientSecret, undefined);
    const revoked = await post(`/admin/gateways/${gateway.json().clientId}/revoke`, {});
    assert.equal(revoked.statusCode, 200);
    const refused = await requestToken(t, {
      grant_type: 'client_credentials',
      client_id: gateway.json().clientId,
      client_secret: gateway.json().clientSecret,
    });
    assert.equal(refused.status, 401);
    assert.equal(
      (await post(`/admin/gateways/${gateway.json().clientId}/revoke`, {})).statusCode,
      404,
      'revoking twice is a 404',
    );
  });

  it('lists every invalid field of a facility at once', async () => {
    const response = await post('/admin/facilities', {
      accountId: 'x',
      name: '',
      timeZone: 'Nowhere/Land',
      guid: 'G'.repeat(21),
    });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(
      response
        .json()
        .errors.map((e: { path: string }) => e.path)
        .sort(),
      ['accountId', 'guid', 'name', 'timeZone'],
    );
  });

  it('refuses a guid used by another facility', async () => {
    const account = (await post('/admin/accounts', { name: 'Dup' })).json();
    assert.equal(
      (await post('/admin/facilities', { accountId: account.id, name: 'A', timeZone: 'UTC', guid: 'FAC-DUP' }))
        .statusCode,
      201,
    );
    const second = await post('/admin/facilities', {
      accountId: account.id,
      name: 'B',
      timeZone: 'UTC',
      guid: 'FAC-DUP',
    });
    assert.equal(second.statusCode, 409);
    assert.equal(second.json().code, 'GUID_TAKEN');
  });

  it('refuses account-key scopes beyond the account scopes, and unknown accounts', async () => {
    const acct = await provisionAccount(t);
    const bad = await post('/admin/account-keys', {
      accountId: acct.accountId,
      clientId: acct.pms.clientId,
      scopes: ['admin'],
    });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().errors[0].path, 'scopes[0]');
    const missing = await post('/admin/account-keys', {
      accountId: '00000000-0000-4000-8000-000000000000',
      clientId: acct.pms.clientId,
    });
    assert.equal(missing.statusCode, 404);
  });

  it('are closed to every token without the admin scope', async () => {
    const acct = await provisionAccount(t);
    assert.equal((await get('/admin/applications', acct.token)).statusCode, 403);
    assert.equal((await post('/admin/accounts', { name: 'x' }, acct.token)).statusCode, 403);
  });
});

// The admin HTTP routes: the same operations as `gatehouse admin`, for an operator token only.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bearer, provisionAccount, requestToken, tenantFixture } from '../helpers/tenants.ts';

const site = tenantFixture({ operator: true });
const { t } = site;

const post = (url: string, payload: object, token = site.operator) =>
  t.app.inject({ method: 'POST', url, payload, headers: bearer(token) });
const get = (url: string, token = site.operator) => t.app.inject({ method: 'GET', url, headers: bearer(token) });

describe('admin routes', () => {
  it('provision a tenant end to end, and the credentials work', async () => {
    const account = (await post('/admin/accounts', { name: 'Acme Storage' })).json();
    const facility = await post('/admin/facilities', {
      accountId: account.id,
      name: 'Main St',
      timeZone: 'America/Denver',
      guid: 'FAC-ADM-1',
      propertyNumber: '7',
      addressLine: '12 Main St',
      city: 'Denver',
      state: 'CO',
      postalCode: '80202',
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
        addressLine1: '12 Main St',
        addressLine2: null,
        city: 'Denver',
        state: 'CO',
        postalCode: '80202',
        country: null,
        addressLine: '12 Main St',
        accessCodeRules: { characters: 'digits', minLength: 4, maxLength: 10 },
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
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error, 'invalid_client');
    assert.equal(
      (await post(`/admin/gateways/${gateway.json().clientId}/revoke`, {})).statusCode,
      404,
      'revoking twice is a 404',
    );
  });

  it('lists every invalid field of a facility at once', async () => {
    const response = await post('/admin/facilities', {
      accountId: 999_999_999,
      name: '',
      timeZone: 'Nowhere/Land',
      guid: 'G'.repeat(21),
      postalCode: 'P'.repeat(21),
    });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(
      response
        .json()
        .errors.map((e: { path: string }) => e.path)
        .sort(),
      ['guid', 'name', 'postalCode', 'timeZone'],
    );
    // An account id that is not an integer is a fault of the body's form (the schema names it).
    const notAnId = await post('/admin/facilities', { accountId: 'x', name: 'A', timeZone: 'UTC' });
    assert.equal(notAnId.statusCode, 400);
    assert.deepEqual(
      notAnId.json().errors.map((e: { path: string }) => e.path),
      ['accountId'],
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

  it('refuses a property number used by any facility of the service (they link a site to its PMS)', async () => {
    const one = (await post('/admin/accounts', { name: 'PN One' })).json();
    const two = (await post('/admin/accounts', { name: 'PN Two' })).json();
    const first = await post('/admin/facilities', {
      accountId: one.id,
      name: 'A',
      timeZone: 'UTC',
      propertyNumber: 'PN-1',
    });
    assert.equal(first.statusCode, 201);
    const second = await post('/admin/facilities', {
      accountId: two.id,
      name: 'B',
      timeZone: 'UTC',
      propertyNumber: 'PN-1',
    });
    assert.equal(second.statusCode, 409);
    assert.equal(second.json().code, 'PROPERTY_NUMBER_TAKEN');
    assert.deepEqual(second.json().errors, [{ path: 'propertyNumber', message: 'is already in use' }]);
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
      accountId: 999_999_999,
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

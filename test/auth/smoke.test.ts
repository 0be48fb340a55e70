import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { bearer, gatewayToken, operatorToken, partnerToken, provisionAccount } from '../helpers/tenants.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp({ runJobs: false });
});
after(() => t.close());

it('issues tokens for every kind of client and the guard reads them', async () => {
  const account = await provisionAccount(t, { facilities: 2 });
  assert.match(account.token, /^ey/);
  const partner = await partnerToken(t, 'AcmePMS', [account.facilities[0]!.guid!]);
  const gateway = await gatewayToken(t, account.facilities[0]!.id);
  const operator = await operatorToken(t);
  const list = await t.app.inject({ method: 'GET', url: '/admin/accounts', headers: bearer(operator) });
  assert.equal(list.statusCode, 200);
  assert.ok(list.json().some((a: { id: string }) => a.id === account.accountId));
  for (const other of [account.token, partner.token, gateway.token]) {
    const refused = await t.app.inject({ method: 'GET', url: '/admin/accounts', headers: bearer(other) });
    assert.equal(refused.statusCode, 403);
  }
  assert.equal((await t.app.inject({ method: 'GET', url: '/admin/accounts' })).statusCode, 401);
});

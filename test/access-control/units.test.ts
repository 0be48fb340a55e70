import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { provisionAccount, type ProvisionedAccount } from '../helpers/tenants.ts';
import { call, pms } from './helpers.ts';

let t: TestApp;
let account: ProvisionedAccount;
before(async () => {
  t = await startTestApp({ runJobs: false });
  account = await provisionAccount(t, { facilities: 2 });
});
after(() => t.close());

describe('facilities', () => {
  it('lists the token account’s facilities and reads one', async () => {
    const list = await call(t, account.token, 'GET', '/facilities');
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.map((f: { id: string }) => f.id).sort(), account.facilities.map((f) => f.id).sort());
    const one = await call(t, account.token, 'GET', `/facilities/${account.facilities[0]!.id}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.timeZone, 'America/Denver');
  });
});

describe('units', () => {
  it('creates a unit Vacant, lists and reads it', async () => {
    const api = pms(t, account.token, account.facilities[0]!.id);
    const created = await api.post('/units', { unitNumber: 'A101', extendedData: { pmsId: 17, note: null } });
    assert.equal(created.status, 201);
    assert.equal(created.body.status, 'Vacant');
    assert.deepEqual(created.body.extendedData, { pmsId: 17, note: null });
    const list = await api.get('/units');
    assert.ok(list.body.some((u: { id: string }) => u.id === created.body.id));
    assert.equal((await api.get(`/units/${created.body.id}`)).body.unitNumber, 'A101');
  });
});

// Units through the PMS face: create, state actions and their refusals, compatibility forms,
// visibility, and the command each change writes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  gatewayToken,
  partnerToken,
  provisionAccount,
  type ProvisionedAccount,
  tenantFixture,
} from '../helpers/tenants.ts';
import { call, pms } from './helpers.ts';

let other: ProvisionedAccount;
const site = tenantFixture({
  facilities: 2,
  started: async (t) => {
    other = await provisionAccount(t, { facilities: 1, name: 'Other Storage Co' });
  },
});
const { t } = site;

describe('facilities', () => {
  it('lists only the token account’s facilities and reads one', async () => {
    const list = await call(t, site.account.token, 'GET', '/facilities');
    assert.equal(list.status, 200);
    assert.ok(Array.isArray(list.body));
    assert.deepEqual(
      list.body.map((f: { id: string }) => f.id).sort(),
      site.account.facilities.map((f) => f.id).sort(),
    );
    const one = await call(t, site.account.token, 'GET', `/facilities/${site.facilityId}`);
    assert.equal(one.status, 200);
    assert.deepEqual(Object.keys(one.body).sort(), [
      'accountId',
      'addressLine',
      'city',
      'country',
      'id',
      'name',
      'postalCode',
      'propertyNumber',
      'state',
      'timeZone',
    ]);
    assert.equal(one.body.timeZone, 'America/Denver');
  });

  it('another account’s facility is 404, like one that does not exist', async () => {
    const foreign = other.facilities[0]!.id;
    for (const path of ['', '/units', '/visitors', '/timegroups', '/accessprofiles', '/commands']) {
      const r = await call(t, site.account.token, 'GET', `/facilities/${foreign}${path}`);
      assert.equal(r.status, 404, path);
      assert.equal(r.body.code, 'NOT_FOUND');
    }
    assert.equal(
      (await call(t, site.account.token, 'POST', `/facilities/${foreign}/units`, { unitNumber: 'X1' })).status,
      404,
    );
    assert.equal((await call(t, site.account.token, 'GET', '/facilities/999999999')).status, 404);
  });

  it('needs the accesscontrol scopes: 401 without a token, 403 for a gateway or partner token, 403 to write with a read-only key', async () => {
    assert.equal((await t.app.inject({ method: 'GET', url: '/facilities' })).statusCode, 401);
    const gateway = await gatewayToken(t, site.facilityId);
    const partner = await partnerToken(t, 'AcmePMS', [site.account.facilities[0]!.guid!]);
    for (const token of [gateway.token, partner.token]) {
      assert.equal((await call(t, token, 'GET', `/facilities/${site.facilityId}/units`)).status, 403);
    }
    const readOnly = await provisionAccount(t, { scopes: ['accesscontrol:read'] });
    const ro = readOnly.facilities[0]!.id;
    assert.equal((await call(t, readOnly.token, 'GET', `/facilities/${ro}/units`)).status, 200);
    assert.equal((await call(t, readOnly.token, 'POST', `/facilities/${ro}/units`, { unitNumber: 'R1' })).status, 403);
  });

  it('each facility starts with "24 Hours" and "All Access" as defaults', async () => {
    const api = pms(t, site.account.token, site.facilityId);
    const groups = (await api.get('/timegroups')).body;
    const profiles = (await api.get('/accessprofiles')).body;
    assert.deepEqual(
      groups.filter((g: { isDefault: boolean }) => g.isDefault).map((g: { name: string }) => g.name),
      ['24 Hours'],
    );
    assert.deepEqual(
      profiles.filter((p: { isDefault: boolean }) => p.isDefault).map((p: { name: string }) => p.name),
      ['All Access'],
    );
    assert.deepEqual(groups.find((g: { name: string }) => g.name === '24 Hours').windows, [
      { days: [0, 1, 2, 3, 4, 5, 6], start: '00:00', end: '24:00' },
    ]);
    assert.equal(profiles.find((p: { name: string }) => p.name === 'All Access').accessAreas, null);
  });
});

describe('units', () => {
  it('creates a unit Vacant with extendedData (arbitrary keys, null values), lists and reads it', async () => {
    const api = pms(t, site.account.token, site.facilityId);
    const created = await api.post('/units', {
      unitNumber: 'A101',
      extendedData: { pmsId: 17, 'odd key': null, nested: { a: [1, null] } },
    });
    assert.equal(created.status, 201);
    assert.deepEqual(Object.keys(created.body).sort(), [
      'extendedData',
      'facilityId',
      'id',
      'propertyNumber',
      'status',
      'unitNumber',
    ]);
    assert.equal(created.body.status, 'Vacant');
    assert.equal(created.body.facilityId, site.facilityId);
    assert.deepEqual(created.body.extendedData, { pmsId: 17, 'odd key': null, nested: { a: [1, null] } });
    assert.ok((await api.get('/units')).body.some((u: { id: string }) => u.id === created.body.id));
    assert.equal((await api.get(`/units/${created.body.id}`)).body.unitNumber, 'A101');
  });

  it('refuses a unit number already used at the facility (400 naming unitNumber), allows it at another facility', async () => {
    const api = pms(t, site.account.token, site.facilityId);
    await api.unit('B200');
    const again = await api.post('/units', { unitNumber: 'B200' });
    assert.equal(again.status, 400);
    assert.equal(again.body.code, 'UNIT_NUMBER_TAKEN');
    assert.deepEqual(
      again.body.errors.map((e: { path: string }) => e.path),
      ['unitNumber'],
    );
    assert.equal(
      (await pms(t, site.account.token, site.account.facilities[1]!.id).post('/units', { unitNumber: 'B200' })).status,
      201,
    );
  });

  it('validates: unitNumber required, 1–50 characters, extendedData an object', async () => {
    const api = pms(t, site.account.token, site.facilityId);
    const r = await api.post('/units', { unitNumber: 'x'.repeat(51), extendedData: 'text' });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path).sort(), ['extendedData', 'unitNumber']);
    assert.equal((await api.post('/units', {})).body.errors[0].path, 'unitNumber');
    assert.equal((await api.post('/units', { unitNumber: '   ' })).status, 400);
    const big = await api.post('/units', { unitNumber: 'BIG', extendedData: { blob: 'x'.repeat(17_000) } });
    assert.equal(big.status, 400);
    assert.equal(big.body.errors[0].path, 'extendedData');
  });

  it('goes Vacant → Rented (a tenant) → Delinquent → Rented → Vacant, then is deleted', async () => {
    const api = pms(t, site.account.token, site.facilityId);
    const unit = await api.unit('C300');
    const { unit: rented } = await api.visitor(unit.id, '31415');
    assert.equal(rented.status, 'Rented');
    assert.equal((await api.post(`/units/${unit.id}/disable`)).body.status, 'Delinquent');
    const visitor = (await api.get(`/units/${unit.id}/visitors`)).body[0];
    assert.equal(visitor.isLockedOut, true, 'a delinquent unit locks its visitors out');
    assert.equal(visitor.isEnabled, true);
    assert.equal((await api.post(`/units/${unit.id}/enable`)).body.status, 'Rented');
    assert.equal((await api.post(`/units/${unit.id}/vacate`)).body.status, 'Vacant');
    assert.deepEqual((await api.get(`/units/${unit.id}/visitors`)).body, [], 'vacating removes every visitor');
    const deleted = await api.post(`/units/${unit.id}/delete/vacant`);
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body, true);
    assert.equal((await api.get(`/units/${unit.id}`)).status, 404);
    assert.equal(
      (await api.post('/units', { unitNumber: 'C300' })).status,
      201,
      'a deleted unit’s number can be used again',
    );
  });

  it('refuses actions not allowed in the current state with 409 and a reason', async () => {
    const api = pms(t, site.account.token, site.facilityId);
    const vacant = await api.unit('D400');
    for (const action of ['enable', 'disable']) {
      const r = await api.post(`/units/${vacant.id}/${action}`);
      assert.equal(r.status, 409, action);
      assert.equal(r.body.code, 'UNIT_VACANT');
      assert.match(r.body.detail, /vacant/i);
    }
    const rented = await api.unit('D401');
    await api.visitor(rented.id, '27182');
    const refused = await api.post(`/units/${rented.id}/delete/vacant`);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'UNIT_OCCUPIED');
    assert.match(refused.body.detail, /Vacate it first/);
    await api.post(`/units/${rented.id}/disable`);
    assert.equal((await api.post(`/units/${rented.id}/delete/vacant`)).body.code, 'UNIT_OCCUPIED');
  });

  it('a repeated action answers the unit unchanged and writes no command', async () => {
    const api = pms(t, site.account.token, site.facilityId);
    const unit = await api.unit('E500');
    await api.visitor(unit.id, '16180');
    await api.post(`/units/${unit.id}/disable`);
    const before = (await api.commands('?limit=1000')).length;
    const again = await api.post(`/units/${unit.id}/disable`);
    assert.equal(again.status, 200);
    assert.equal(again.body.status, 'Delinquent');
    assert.equal((await api.commands('?limit=1000')).length, before);
  });

  it('unknown or malformed unit ids are 404', async () => {
    const api = pms(t, site.account.token, site.facilityId);
    for (const id of ['999999999', 'not-an-id', '0', '-1', '1e3', '99999999999999999999']) {
      assert.equal((await api.get(`/units/${id}`)).status, 404);
      assert.equal((await api.post(`/units/${id}/disable`)).status, 404);
      assert.equal((await api.get(`/units/${id}/visitors`)).status, 404);
    }
    const foreignUnit = await pms(t, other.token, other.facilities[0]!.id).unit('F1');
    assert.equal(
      (await api.post(`/units/${foreignUnit.id}/disable`)).status,
      404,
      'a unit of another facility is not found here',
    );
  });
});

describe('compatibility forms', () => {
  it('accepts application/json-patch+json bodies, empty bodies on actions, and an api-version: 2.0 header', async () => {
    const api = pms(t, site.account.token, site.facilityId);
    const patch = await api.post('/units', JSON.stringify({ unitNumber: 'P1' }), {
      'content-type': 'application/json-patch+json',
      'api-version': '2.0',
    });
    assert.equal(patch.status, 201);
    await api.visitor(patch.body.id, '9090');
    const variants: Record<string, string>[] = [
      { 'content-type': 'application/json-patch+json' },
      { 'content-type': 'application/json' },
      {},
    ];
    for (const headers of variants) {
      const r = await api.post(`/units/${patch.body.id}/disable`, '', { ...headers, 'api-version': '2.0' });
      assert.equal(r.status, 200, JSON.stringify(headers));
      assert.equal(r.body.status, 'Delinquent');
    }
    const list = await call(t, site.account.token, 'GET', `/facilities/${site.facilityId}/units`, undefined, {
      'api-version': '2.0',
    });
    assert.equal(list.status, 200);
    assert.ok(Array.isArray(list.body));
  });

  it('refuses a body that is not JSON with 400, naming no internals', async () => {
    const r = await pms(t, site.account.token, site.facilityId).post('/units', '{"unitNumber": ', {
      'content-type': 'application/json-patch+json',
    });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'MALFORMED_JSON');
  });
});

describe('suppressCommands and refresh', () => {
  it('suppressCommands (body or query) makes the change without a command; a refresh sends the full state in one', async () => {
    const fid = site.account.facilities[1]!.id;
    const api = pms(t, site.account.token, fid);
    const before = (await api.commands('?limit=1000')).length;
    const a = await api.post('/units', { unitNumber: 'S1', suppressCommands: true });
    const b = await api.post('/units?suppressCommands=true', { unitNumber: 'S2' });
    assert.equal(a.status, 201);
    assert.equal(b.status, 201);
    await api.post(`/units/${a.body.id}/delete/vacant?suppressCommands=true`);
    assert.equal((await api.commands('?limit=1000')).length, before);

    const refresh = await api.post('/units/refresh');
    assert.equal(refresh.status, 202);
    assert.equal(refresh.body.command.type, 'units.refresh');
    const units = (await api.get('/units')).body;
    assert.equal(refresh.body.count, units.length);
    const commands = await api.commands('?limit=1000');
    assert.equal(commands.length, before + 1);
    const last = commands.at(-1);
    assert.equal(last.id, refresh.body.command.id);
    assert.deepEqual(
      last.payload.units.map((u: { unitNumber: string }) => u.unitNumber),
      units.map((u: { unitNumber: string }) => u.unitNumber),
    );
    assert.ok(
      !last.payload.units.some((u: { unitNumber: string }) => u.unitNumber === 'S1'),
      'the deleted unit is not in the state',
    );
  });

  it('the OpenAPI document marks the refresh routes and suppressCommands deprecated', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/swagger/v3.0.json' })).json();
    assert.equal(doc.paths['/facilities/{facilityId}/units/refresh'].post.deprecated, true);
    assert.equal(doc.paths['/facilities/{facilityId}/visitors/refresh'].post.deprecated, true);
    const create = doc.paths['/facilities/{facilityId}/visitors'].post;
    // The body is the named CreateVisitorRequest.
    const ref: string = create.requestBody.content['application/json'].schema.$ref;
    const schema = doc.components.schemas[ref.split('/').pop()!];
    assert.equal(schema.properties.suppressCommands.deprecated, true);
    assert.ok(
      create.parameters.some(
        (p: { name: string; schema?: { deprecated?: boolean }; deprecated?: boolean }) =>
          p.name === 'suppressCommands' && (p.deprecated || p.schema?.deprecated),
      ),
    );
  });
});

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
import type { EntityId } from '../../src/ids.ts';
import { ok, refused, typedClient } from '../helpers/client.ts';
import { call, malformed, pms } from './helpers.ts';

let other: ProvisionedAccount;
const site = tenantFixture({
  facilities: 2,
  started: async (t) => {
    other = await provisionAccount(t, { facilities: 1, name: 'Other Storage Co' });
  },
});
const { t } = site;
const api = (facilityId: EntityId = site.facilityId, token = site.account.token) => pms(t, token, facilityId);
const unitAt = (unitId: EntityId, at = api()) => ({ params: { path: { ...at.path, unitId } } });
const createUnit = (body: { unitNumber: string; extendedData?: Record<string, unknown> }, at = api()) =>
  at.client.POST('/facilities/{facilityId}/units', { params: { path: at.path }, body });
const listUnits = (at = api()) =>
  ok(at.client.GET('/facilities/{facilityId}/units', { params: { path: at.path } }), 200);
const unitVisitors = (unitId: EntityId, at = api()) =>
  ok(at.client.GET('/facilities/{facilityId}/units/{unitId}/visitors', unitAt(unitId, at)), 200);
/** A unit's state action (an empty body), its whole answer. */
const action = (unitId: EntityId, name: 'disable' | 'enable' | 'vacate', at = api()) =>
  at.client.POST(`/facilities/{facilityId}/units/{unitId}/${name}`, unitAt(unitId, at));

describe('facilities', () => {
  it('lists only the token account’s facilities and reads one', async () => {
    const { client, path } = api();
    const list = await ok(client.GET('/facilities'), 200);
    assert.ok(Array.isArray(list));
    assert.deepEqual(list.map((f) => f.id).sort(), site.account.facilities.map((f) => f.id).sort());
    const one = await ok(client.GET('/facilities/{facilityId}', { params: { path } }), 200);
    assert.deepEqual(Object.keys(one).sort(), [
      'accessCodeRules',
      'accountId',
      'addressLine',
      'addressLine1',
      'addressLine2',
      'city',
      'country',
      'id',
      'name',
      'postalCode',
      'propertyNumber',
      'state',
      'timeZone',
    ]);
    assert.equal(one.timeZone, 'America/Denver');
    // What a PMS generates codes by: the default until the operator sets others.
    assert.deepEqual(one.accessCodeRules, { characters: 'digits', minLength: 4, maxLength: 10 });
  });

  it('another account’s facility is 404, like one that does not exist', async () => {
    const { client, path } = api(other.facilities[0]!.id);
    const at = { params: { path } };
    for (const read of [
      client.GET('/facilities/{facilityId}', at),
      client.GET('/facilities/{facilityId}/units', at),
      client.GET('/facilities/{facilityId}/visitors', at),
      client.GET('/facilities/{facilityId}/timegroups', at),
      client.GET('/facilities/{facilityId}/accessprofiles', at),
      client.GET('/facilities/{facilityId}/commands', at),
    ]) {
      const r = await refused(read, 404);
      assert.equal(r.code, 'NOT_FOUND');
    }
    await refused(createUnit({ unitNumber: 'X1' }, api(other.facilities[0]!.id)), 404);
    await refused(client.GET('/facilities/{facilityId}', { params: { path: { facilityId: 999999999 } } }), 404);
  });

  it('needs the accesscontrol scopes: 401 without a token, 403 for a gateway or partner token, 403 to write with a read-only key', async () => {
    await refused(typedClient(t).GET('/facilities'), 401);
    const gateway = await gatewayToken(t, site.facilityId);
    const partner = await partnerToken(t, 'AcmePMS', [site.account.facilities[0]!.guid!]);
    for (const token of [gateway.token, partner.token]) {
      const at = api(site.facilityId, token);
      await refused(at.client.GET('/facilities/{facilityId}/units', { params: { path: at.path } }), 403);
    }
    const readOnly = await provisionAccount(t, { scopes: ['accesscontrol:read'] });
    const ro = api(readOnly.facilities[0]!.id, readOnly.token);
    await listUnits(ro);
    await refused(createUnit({ unitNumber: 'R1' }, ro), 403);
  });

  it('each facility starts with "24 Hours" and "All Access" as defaults', async () => {
    const { client, path } = api();
    const groups = await ok(client.GET('/facilities/{facilityId}/timegroups', { params: { path } }), 200);
    const profiles = await ok(client.GET('/facilities/{facilityId}/accessprofiles', { params: { path } }), 200);
    assert.deepEqual(
      groups.filter((g) => g.isDefault).map((g) => g.name),
      ['24 Hours'],
    );
    assert.deepEqual(
      profiles.filter((p) => p.isDefault).map((p) => p.name),
      ['All Access'],
    );
    assert.deepEqual(groups.find((g) => g.name === '24 Hours')?.windows, [
      { days: [0, 1, 2, 3, 4, 5, 6], start: '00:00', end: '24:00' },
    ]);
    assert.equal(profiles.find((p) => p.name === 'All Access')?.accessAreas, null);
  });
});

describe('units', () => {
  it('creates a unit Vacant with extendedData (arbitrary keys, null values), lists and reads it', async () => {
    const created = await ok(
      createUnit({ unitNumber: 'A101', extendedData: { pmsId: 17, 'odd key': null, nested: { a: [1, null] } } }),
      201,
    );
    assert.deepEqual(Object.keys(created).sort(), [
      'extendedData',
      'facilityId',
      'id',
      'propertyNumber',
      'status',
      'unitNumber',
    ]);
    assert.equal(created.status, 'Vacant');
    assert.equal(created.facilityId, site.facilityId);
    assert.deepEqual(created.extendedData, { pmsId: 17, 'odd key': null, nested: { a: [1, null] } });
    assert.ok((await listUnits()).some((u) => u.id === created.id));
    const read = await ok(api().client.GET('/facilities/{facilityId}/units/{unitId}', unitAt(created.id)), 200);
    assert.equal(read.unitNumber, 'A101');
  });

  it('refuses a unit number already used at the facility (400 naming unitNumber), allows it at another facility', async () => {
    await api().unit('B200');
    const again = await refused(createUnit({ unitNumber: 'B200' }), 400);
    assert.equal(again.code, 'UNIT_NUMBER_TAKEN');
    assert.deepEqual(
      again.errors?.map((e) => e.path),
      ['unitNumber'],
    );
    await ok(createUnit({ unitNumber: 'B200' }, api(site.account.facilities[1]!.id)), 201);
  });

  it('validates: unitNumber required, 1–50 characters, extendedData an object', async () => {
    // extendedData as text and a body without unitNumber: raw, outside the document's types.
    const raw = malformed(t, site.account.token, site.facilityId);
    const r = await raw.post('/units', { unitNumber: 'x'.repeat(51), extendedData: 'text' });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body.errors.map((e: { path: string }) => e.path).sort(), ['extendedData', 'unitNumber']);
    assert.equal((await raw.post('/units', {})).body.errors[0].path, 'unitNumber');
    await refused(createUnit({ unitNumber: '   ' }), 400);
    const big = await refused(createUnit({ unitNumber: 'BIG', extendedData: { blob: 'x'.repeat(17_000) } }), 400);
    assert.equal(big.errors?.[0]?.path, 'extendedData');
  });

  it('goes Vacant → Rented (a tenant) → Delinquent → Rented → Vacant, then is deleted', async () => {
    const { client } = api();
    const unit = await api().unit('C300');
    const { unit: rented } = await api().visitor(unit.id, '31415');
    assert.equal(rented?.status, 'Rented');
    assert.equal((await ok(action(unit.id, 'disable'), 200)).status, 'Delinquent');
    const [visitor] = await unitVisitors(unit.id);
    assert.equal(visitor?.isLockedOut, true, 'a delinquent unit locks its visitors out');
    assert.equal(visitor?.isEnabled, true);
    assert.equal((await ok(action(unit.id, 'enable'), 200)).status, 'Rented');
    assert.equal((await ok(action(unit.id, 'vacate'), 200)).status, 'Vacant');
    assert.deepEqual(await unitVisitors(unit.id), [], 'vacating removes every visitor');
    const deleted = await ok(
      client.POST('/facilities/{facilityId}/units/{unitId}/delete/vacant', unitAt(unit.id)),
      200,
    );
    assert.equal(deleted, true);
    await refused(client.GET('/facilities/{facilityId}/units/{unitId}', unitAt(unit.id)), 404);
    const again = await createUnit({ unitNumber: 'C300' });
    assert.equal(again.response.status, 201, 'a deleted unit’s number can be used again');
  });

  it('refuses actions not allowed in the current state with 409 and a reason', async () => {
    const { client } = api();
    const vacant = await api().unit('D400');
    for (const name of ['enable', 'disable'] as const) {
      const r = await refused(action(vacant.id, name), 409);
      assert.equal(r.code, 'UNIT_VACANT', name);
      assert.match(r.detail, /vacant/i);
    }
    const rented = await api().unit('D401');
    await api().visitor(rented.id, '27182');
    const deleteVacant = () => client.POST('/facilities/{facilityId}/units/{unitId}/delete/vacant', unitAt(rented.id));
    const occupied = await refused(deleteVacant(), 409);
    assert.equal(occupied.code, 'UNIT_OCCUPIED');
    assert.match(occupied.detail, /Vacate it first/);
    await ok(action(rented.id, 'disable'), 200);
    assert.equal((await refused(deleteVacant(), 409)).code, 'UNIT_OCCUPIED');
  });

  it('a repeated action answers the unit unchanged and writes no command', async () => {
    const unit = await api().unit('E500');
    await api().visitor(unit.id, '16180');
    await ok(action(unit.id, 'disable'), 200);
    const before = (await api().commands({ limit: 1000 })).length;
    const again = await ok(action(unit.id, 'disable'), 200);
    assert.equal(again.status, 'Delinquent');
    assert.equal((await api().commands({ limit: 1000 })).length, before);
  });

  it('unknown or malformed unit ids are 404', async () => {
    // Ids that are not ids at all: raw, as the typed client sends numbers only.
    const raw = malformed(t, site.account.token, site.facilityId);
    for (const id of ['999999999', 'not-an-id', '0', '-1', '1e3', '99999999999999999999']) {
      assert.equal((await raw.get(`/units/${id}`)).status, 404);
      assert.equal((await raw.post(`/units/${id}/disable`)).status, 404);
      assert.equal((await raw.get(`/units/${id}/visitors`)).status, 404);
    }
    const foreignUnit = await pms(t, other.token, other.facilities[0]!.id).unit('F1');
    const foreign = await action(foreignUnit.id, 'disable');
    assert.equal(foreign.response.status, 404, 'a unit of another facility is not found here');
  });
});

describe('compatibility forms', () => {
  it('accepts application/json-patch+json bodies, empty bodies on actions, and an api-version: 2.0 header', async () => {
    const api = malformed(t, site.account.token, site.facilityId);
    const patch = await api.post('/units', JSON.stringify({ unitNumber: 'P1' }), {
      'content-type': 'application/json-patch+json',
      'api-version': '2.0',
    });
    assert.equal(patch.status, 201);
    await pms(t, site.account.token, site.facilityId).visitor(patch.body.id, '9090');
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
    const r = await malformed(t, site.account.token, site.facilityId).post('/units', '{"unitNumber": ', {
      'content-type': 'application/json-patch+json',
    });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'MALFORMED_JSON');
  });
});

describe('suppressCommands and refresh', () => {
  it('suppressCommands (body or query) makes the change without a command; a refresh sends the full state in one', async () => {
    const at = api(site.account.facilities[1]!.id);
    const { client, path } = at;
    const before = (await at.commands({ limit: 1000 })).length;
    const a = await ok(
      client.POST('/facilities/{facilityId}/units', {
        params: { path },
        body: { unitNumber: 'S1', suppressCommands: true },
      }),
      201,
    );
    await ok(
      client.POST('/facilities/{facilityId}/units', {
        params: { path, query: { suppressCommands: true } },
        body: { unitNumber: 'S2' },
      }),
      201,
    );
    await ok(
      client.POST('/facilities/{facilityId}/units/{unitId}/delete/vacant', {
        params: { path: { ...path, unitId: a.id }, query: { suppressCommands: true } },
      }),
      200,
    );
    assert.equal((await at.commands({ limit: 1000 })).length, before);

    const refresh = await ok(client.POST('/facilities/{facilityId}/units/refresh', { params: { path } }), 202);
    assert.equal(refresh.command.type, 'units.refresh');
    const units = await listUnits(at);
    assert.equal(refresh.count, units.length);
    const commands = await at.commands({ limit: 1000 });
    assert.equal(commands.length, before + 1);
    const last = commands.at(-1);
    assert.ok(last);
    assert.equal(last.id, refresh.command.id);
    // The document leaves a command's payload open: a refresh carries the units' state.
    const state = (last.payload as { units: { unitNumber: string }[] }).units;
    assert.deepEqual(
      state.map((u) => u.unitNumber),
      units.map((u) => u.unitNumber),
    );
    assert.ok(!state.some((u) => u.unitNumber === 'S1'), 'the deleted unit is not in the state');
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

// Visitors through the PMS face: gate codes (form, uniqueness, write-only), placement on units,
// defaults, updates, remove/disable/enable, and every bad input of the issue.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Schemas } from '../../clients/typescript/index.ts';
import type { EntityId } from '../../src/ids.ts';
import { ok, refused } from '../helpers/client.ts';
import { tenantFixture } from '../helpers/tenants.ts';
import { malformed, pms } from './helpers.ts';

const site = tenantFixture({ facilities: 2 });
const { t } = site;
const api = () => pms(t, site.account.token, site.facilityId);
const otherFacility = () => pms(t, site.account.token, site.account.facilities[1]!.id);
/** Bodies outside the document's types (a code as a number, a string for a boolean), sent raw on purpose. */
const lenient = () => malformed(t, site.account.token, site.facilityId);

const createVisitor = (body: Schemas['CreateVisitorRequest'], at = api()) =>
  at.client.POST('/facilities/{facilityId}/visitors', { params: { path: at.path }, body });
const updateVisitor = (visitorId: EntityId, body: Schemas['UpdateVisitorRequest']) =>
  api().client.POST('/facilities/{facilityId}/visitors/{visitorId}/update', {
    params: { path: { ...api().path, visitorId } },
    body,
  });
const visitorAt = (visitorId: EntityId) => ({ params: { path: { ...api().path, visitorId } } });
const unitAt = (unitId: EntityId, at = api()) => ({ params: { path: { ...at.path, unitId } } });
const getUnit = (unitId: EntityId) =>
  ok(api().client.GET('/facilities/{facilityId}/units/{unitId}', unitAt(unitId)), 200);
const timeGroups = (at = api()) =>
  ok(at.client.GET('/facilities/{facilityId}/timegroups', { params: { path: at.path } }), 200);
const accessProfiles = () =>
  ok(api().client.GET('/facilities/{facilityId}/accessprofiles', { params: { path: api().path } }), 200);
const visitors = () => ok(api().client.GET('/facilities/{facilityId}/visitors', { params: { path: api().path } }), 200);

const VISITOR_KEYS = [
  'accessProfileId',
  'accessProfileName',
  'contactMethodPreference',
  'countryCode',
  'email',
  'extendedData',
  'firstName',
  'id',
  'isEnabled',
  'isLockedOut',
  'isPortalVisitor',
  'isTenant',
  'lastName',
  'mobilePhoneNumber',
  'name',
  'timeGroupId',
  'timeGroupName',
  'unitId',
  'unitNumber',
].sort();

describe('creating a visitor', () => {
  it('answers {visitor, unit}: the visitor with its unitNumber and defaults, the unit now Rented, never the code', async () => {
    const unit = await api().unit('V100');
    const r = await ok(
      createVisitor({
        unitId: unit.id,
        accessCode: '0042',
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        mobilePhoneNumber: '+13035550100',
        isTenant: true,
        isPortalVisitor: true,
        extendedData: { tenantRef: 'T-9', memo: null },
      }),
      201,
    );
    assert.deepEqual(Object.keys(r).sort(), ['unit', 'visitor']);
    const v = r.visitor;
    assert.deepEqual(Object.keys(v).sort(), VISITOR_KEYS);
    assert.equal(v.name, 'Ada Lovelace');
    assert.equal(v.unitNumber, 'V100');
    assert.equal(v.timeGroupName, '24 Hours');
    assert.equal(v.accessProfileName, 'All Access');
    assert.equal(v.isEnabled, true);
    assert.equal(v.isLockedOut, false);
    assert.deepEqual(v.extendedData, { tenantRef: 'T-9', memo: null });
    assert.equal(r.unit?.status, 'Rented');
    assert.equal(JSON.stringify(r).includes('0042'), false);
    const read = await ok(api().client.GET('/facilities/{facilityId}/visitors/{visitorId}', visitorAt(v.id)), 200);
    assert.deepEqual(read, v);
    assert.equal(JSON.stringify(await visitors()).includes('0042'), false);
  });

  it('accepts accessCode as a JSON number, and timeGroupId/accessProfileId 0 or null as the defaults', async () => {
    const unit = await api().unit('V101');
    const groups = await timeGroups();
    const profiles = await accessProfiles();
    // The code as a JSON number: outside the document's types (a string of digits), accepted all the same.
    const a = await lenient().post('/visitors', {
      unitId: unit.id,
      accessCode: 5551234,
      firstName: 'N',
      lastName: 'Umber',
      isTenant: true,
      timeGroupId: 0,
      accessProfileId: null,
    });
    assert.equal(a.status, 201);
    assert.equal(a.body.visitor.timeGroupId, groups.find((g) => g.isDefault)!.id);
    assert.equal(a.body.visitor.accessProfileId, profiles.find((p) => p.isDefault)!.id);
    const business = groups.find((g) => g.name === 'Business Hours')!;
    const gateOnly = profiles.find((p) => p.name === 'Gate Only')!;
    const b = await ok(
      createVisitor({
        unitId: unit.id,
        accessCode: '5551235',
        firstName: 'B',
        lastName: 'Iz',
        isTenant: false,
        timeGroupId: business.id,
        accessProfileId: gateOnly.id,
      }),
      201,
    );
    assert.equal(b.visitor.timeGroupName, 'Business Hours');
    assert.equal(b.visitor.accessProfileName, 'Gate Only');
  });

  it('refuses codes of 0 or 11 digits, with letters, or of the wrong type — every bad field in one 400, the code never echoed', async () => {
    const unit = await api().unit('V102');
    // Numbers and a boolean among them: raw, as the typed client sends a code as a string only.
    for (const accessCode of ['', '12345678901', 12345678901, '12a45', 'abcd', '-1234', 12.5, true]) {
      const r = await lenient().post('/visitors', {
        unitId: unit.id,
        accessCode,
        firstName: 'X',
        lastName: 'Y',
        isTenant: true,
      });
      assert.equal(r.status, 400, JSON.stringify(accessCode));
      // The facility's rules in words: the default, 4 to 10 digits.
      assert.deepEqual(r.body.errors, [{ path: 'accessCode', message: 'must be 4 to 10 digits' }]);
      if (String(accessCode).length > 1) assert.equal(JSON.stringify(r.body).includes(String(accessCode)), false);
    }
    const many = await lenient().post('/visitors', {
      unitId: unit.id,
      accessCode: '1a',
      firstName: '',
      isTenant: 'yes',
      email: 'x'.repeat(300),
    });
    assert.equal(many.status, 400);
    assert.deepEqual(many.body.errors.map((e: { path: string }) => e.path).sort(), [
      'accessCode',
      'email',
      'firstName',
      'isTenant',
      'lastName',
    ]);
    assert.equal((await getUnit(unit.id)).status, 'Vacant', 'nothing was applied');
  });

  it('refuses a code already used by an enabled visitor of the facility (400 naming accessCode), not echoing it; allows it at another facility', async () => {
    const one = await api().unit('V103');
    const two = await api().unit('V104');
    await api().visitor(one.id, '8675309');
    // The code as a number meets the same code given as a string (raw: outside the document's types).
    const dup = await lenient().post('/visitors', {
      unitId: two.id,
      accessCode: 8675309,
      firstName: 'Dup',
      lastName: 'Code',
      isTenant: true,
    });
    assert.equal(dup.status, 400);
    assert.equal(dup.body.code, 'ACCESS_CODE_IN_USE');
    assert.deepEqual(
      dup.body.errors.map((e: { path: string }) => e.path),
      ['accessCode'],
    );
    assert.match(dup.body.errors[0].message, /already in use at this facility/);
    assert.equal(JSON.stringify(dup.body).includes('8675309'), false);
    assert.equal((await getUnit(two.id)).status, 'Vacant', 'the refused change was rolled back whole');
    const elsewhere = otherFacility();
    await elsewhere.visitor((await elsewhere.unit('V103')).id, '8675309');
  });

  it('a disabled visitor’s code can be given to another; enabling the first is then a 409', async () => {
    const unit = await api().unit('V105');
    const first = await api().visitor(unit.id, '7777001');
    const { client } = api();
    const firstAt = visitorAt(first.visitor.id);
    const disabled = await ok(client.POST('/facilities/{facilityId}/visitors/{visitorId}/disable', firstAt), 200);
    assert.equal(disabled.isEnabled, false);
    await ok(
      createVisitor({
        unitId: unit.id,
        accessCode: '7777001',
        firstName: 'Second',
        lastName: 'Holder',
        isTenant: false,
      }),
      201,
    );
    const enable = await refused(client.POST('/facilities/{facilityId}/visitors/{visitorId}/enable', firstAt), 409);
    assert.equal(enable.code, 'ACCESS_CODE_IN_USE');
    await ok(updateVisitor(first.visitor.id, { accessCode: '7777002' }), 200);
    const enabled = await ok(client.POST('/facilities/{facilityId}/visitors/{visitorId}/enable', firstAt), 200);
    assert.equal(enabled.isEnabled, true);
    assert.equal(enabled.isLockedOut, false);
  });

  it('refuses an unknown unit and another facility’s unit alike (404 UNIT_NOT_FOUND on unitId)', async () => {
    const foreign = await otherFacility().unit('FOREIGN');
    // Another facility's unit, the next id (none yet), and one far beyond any id.
    for (const unitId of [foreign.id, foreign.id + 1, 9_007_199_254_740_991]) {
      const r = await refused(
        createVisitor({ unitId, accessCode: '4242', firstName: 'A', lastName: 'B', isTenant: true }),
        404,
      );
      assert.equal(r.code, 'UNIT_NOT_FOUND', String(unitId));
      assert.deepEqual(
        r.errors?.map((e) => e.path),
        ['unitId'],
      );
    }
    const there = otherFacility();
    const visitorsThere = await ok(
      there.client.GET('/facilities/{facilityId}/units/{unitId}/visitors', unitAt(foreign.id, there)),
      200,
    );
    assert.equal(visitorsThere.length, 0);
  });

  it('refuses a visitor who is not a tenant on a vacant unit (409), and unknown time groups and access profiles (404)', async () => {
    const unit = await api().unit('V106');
    const r = await refused(
      createVisitor({ unitId: unit.id, accessCode: '1212', firstName: 'Not', lastName: 'Tenant', isTenant: false }),
      409,
    );
    assert.equal(r.code, 'UNIT_VACANT');
    const otherGroups = await timeGroups(otherFacility());
    const g = await refused(
      createVisitor({
        unitId: unit.id,
        accessCode: '1213',
        firstName: 'T',
        lastName: 'G',
        isTenant: true,
        timeGroupId: otherGroups[0]!.id,
      }),
      404,
    );
    assert.equal(g.code, 'TIME_GROUP_NOT_FOUND');
    const p = await refused(
      createVisitor({
        unitId: unit.id,
        accessCode: '1214',
        firstName: 'A',
        lastName: 'P',
        isTenant: true,
        accessProfileId: 999999999,
      }),
      404,
    );
    assert.equal(p.code, 'ACCESS_PROFILE_NOT_FOUND');
  });
});

describe('changing a visitor', () => {
  it('updates the fields given, keeps the others, replaces extendedData, moves between units', async () => {
    const unit = await api().unit('W200');
    const other = await api().unit('W201');
    const { visitor } = await api().visitor(unit.id, '3030', { email: 'old@example.com', extendedData: { a: 1 } });
    // The new code as a JSON number: raw, outside the document's types.
    const r = await lenient().post(`/visitors/${visitor.id}/update`, {
      lastName: 'Renamed',
      email: '',
      extendedData: { b: null },
      accessCode: 4040,
    });
    assert.equal(r.status, 200);
    assert.equal(r.body.name, 'Pat Renamed');
    assert.equal(r.body.email, null);
    assert.deepEqual(r.body.extendedData, { b: null });
    assert.equal(r.body.firstName, 'Pat');
    assert.equal(JSON.stringify(r.body).includes('4040'), false);
    // The code changed: the old one is free again, the new one taken.
    await api().visitor(other.id, '3030');
    const taken = await refused(
      createVisitor({ unitId: other.id, accessCode: '4040', firstName: 'C', lastName: 'D', isTenant: false }),
      400,
    );
    assert.equal(taken.code, 'ACCESS_CODE_IN_USE');
    const moved = await ok(updateVisitor(visitor.id, { unitId: other.id }), 200);
    assert.equal(moved.unitNumber, 'W201');
    const bad = await refused(updateVisitor(visitor.id, { accessCode: '12345678901', firstName: '' }), 400);
    assert.deepEqual(bad.errors?.map((e) => e.path).sort(), ['accessCode', 'firstName']);
  });

  it('removes a visitor (204, then 404), disables and enables', async () => {
    const unit = await api().unit('W202');
    const { visitor } = await api().visitor(unit.id, '5050');
    // An empty json-patch+json body, as some PMS send it: raw, on purpose.
    const off = await lenient().post(`/visitors/${visitor.id}/disable`, '', {
      'content-type': 'application/json-patch+json',
    });
    assert.equal(off.status, 200);
    assert.equal(off.body.isLockedOut, true);
    const { client } = api();
    const at = visitorAt(visitor.id);
    assert.equal(
      (await ok(client.POST('/facilities/{facilityId}/visitors/{visitorId}/enable', at), 200)).isEnabled,
      true,
    );
    assert.equal((await client.POST('/facilities/{facilityId}/visitors/{visitorId}/remove', at)).response.status, 204);
    await refused(client.GET('/facilities/{facilityId}/visitors/{visitorId}', at), 404);
    await refused(client.POST('/facilities/{facilityId}/visitors/{visitorId}/remove', at), 404);
    await refused(updateVisitor(visitor.id, { firstName: 'Ghost' }), 404);
    await api().visitor(unit.id, '5050'); // the removed visitor's code is free
  });
});

describe('gate codes are write-only', () => {
  it('never appear in a response, a command the PMS reads, a log line or an error message', async () => {
    const code = '9081726354';
    const unit = await api().unit('Z900');
    const { visitor } = await api().visitor(unit.id, code);
    await ok(updateVisitor(visitor.id, { accessCode: code, firstName: 'Again' }), 200);
    await refused(
      createVisitor({ unitId: unit.id, accessCode: code, firstName: 'Dup', lastName: 'X', isTenant: false }),
      400,
    );
    await refused(
      createVisitor({ unitId: unit.id, accessCode: `${code}9`, firstName: 'Long', lastName: 'X', isTenant: false }),
      400,
    );
    const { client, path } = api();
    await ok(client.POST('/facilities/{facilityId}/visitors/refresh', { params: { path } }), 202);
    const everything = [
      await visitors(),
      await ok(client.GET('/facilities/{facilityId}/units/{unitId}/visitors', unitAt(unit.id)), 200),
      await api().commands({ limit: 1000 }),
    ];
    assert.equal(JSON.stringify(everything).includes(code), false);
    assert.equal(JSON.stringify(everything).includes('sealedAccessCode'), false);
    assert.equal(t.logs.text.includes(code), false);
    const { rows } = await t.services.database.pool.query('select payload::text as p from commands');
    assert.equal(
      rows.some((r) => r.p.includes(code)),
      false,
      'not in clear in stored commands either',
    );
    const stored = await t.services.database.pool.query(
      'select access_code_digest, access_code_sealed from visitors where id = $1',
      [visitor.id],
    );
    assert.equal(
      Buffer.concat([stored.rows[0].access_code_digest, stored.rows[0].access_code_sealed]).includes(Buffer.from(code)),
      false,
    );
  });
});

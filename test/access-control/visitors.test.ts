// Visitors through the PMS face: gate codes (form, uniqueness, write-only), placement on units,
// defaults, updates, remove/disable/enable, and every bad input of the issue.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tenantFixture } from '../helpers/tenants.ts';
import { pms } from './helpers.ts';

const site = tenantFixture({ facilities: 2 });
const { t } = site;
const api = () => pms(t, site.account.token, site.facilityId);

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
    const r = await api().post('/visitors', {
      unitId: unit.id,
      accessCode: '0042',
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.com',
      mobilePhoneNumber: '+13035550100',
      isTenant: true,
      isPortalVisitor: true,
      extendedData: { tenantRef: 'T-9', memo: null },
    });
    assert.equal(r.status, 201);
    assert.deepEqual(Object.keys(r.body).sort(), ['unit', 'visitor']);
    const v = r.body.visitor;
    assert.deepEqual(Object.keys(v).sort(), VISITOR_KEYS);
    assert.equal(v.name, 'Ada Lovelace');
    assert.equal(v.unitNumber, 'V100');
    assert.equal(v.timeGroupName, '24 Hours');
    assert.equal(v.accessProfileName, 'All Access');
    assert.equal(v.isEnabled, true);
    assert.equal(v.isLockedOut, false);
    assert.deepEqual(v.extendedData, { tenantRef: 'T-9', memo: null });
    assert.equal(r.body.unit.status, 'Rented');
    assert.equal(JSON.stringify(r.body).includes('0042'), false);
    const read = await api().get(`/visitors/${v.id}`);
    assert.deepEqual(read.body, v);
    assert.equal(JSON.stringify((await api().get('/visitors')).body).includes('0042'), false);
  });

  it('accepts accessCode as a JSON number, and timeGroupId/accessProfileId 0 or null as the defaults', async () => {
    const unit = await api().unit('V101');
    const groups = (await api().get('/timegroups')).body;
    const profiles = (await api().get('/accessprofiles')).body;
    const a = await api().post('/visitors', {
      unitId: unit.id,
      accessCode: 5551234,
      firstName: 'N',
      lastName: 'Umber',
      isTenant: true,
      timeGroupId: 0,
      accessProfileId: null,
    });
    assert.equal(a.status, 201);
    assert.equal(a.body.visitor.timeGroupId, groups.find((g: { isDefault: boolean }) => g.isDefault).id);
    assert.equal(a.body.visitor.accessProfileId, profiles.find((p: { isDefault: boolean }) => p.isDefault).id);
    const business = groups.find((g: { name: string }) => g.name === 'Business Hours');
    const gateOnly = profiles.find((p: { name: string }) => p.name === 'Gate Only');
    const b = await api().post('/visitors', {
      unitId: unit.id,
      accessCode: '5551235',
      firstName: 'B',
      lastName: 'Iz',
      isTenant: false,
      timeGroupId: business.id,
      accessProfileId: gateOnly.id,
    });
    assert.equal(b.status, 201);
    assert.equal(b.body.visitor.timeGroupName, 'Business Hours');
    assert.equal(b.body.visitor.accessProfileName, 'Gate Only');
  });

  it('refuses codes of 0 or 11 digits, with letters, or of the wrong type — every bad field in one 400, the code never echoed', async () => {
    const unit = await api().unit('V102');
    for (const accessCode of ['', '12345678901', 12345678901, '12a45', 'abcd', '-1234', 12.5, true]) {
      const r = await api().post('/visitors', {
        unitId: unit.id,
        accessCode,
        firstName: 'X',
        lastName: 'Y',
        isTenant: true,
      });
      assert.equal(r.status, 400, JSON.stringify(accessCode));
      assert.deepEqual(r.body.errors, [
        { path: 'accessCode', message: 'must be 1 to 10 digits, as a string of digits or a whole number' },
      ]);
      if (String(accessCode).length > 1) assert.equal(JSON.stringify(r.body).includes(String(accessCode)), false);
    }
    const many = await api().post('/visitors', {
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
    assert.equal((await api().get(`/units/${unit.id}`)).body.status, 'Vacant', 'nothing was applied');
  });

  it('refuses a code already used by an enabled visitor of the facility (400 naming accessCode), not echoing it; allows it at another facility', async () => {
    const one = await api().unit('V103');
    const two = await api().unit('V104');
    await api().visitor(one.id, '8675309');
    const dup = await api().post('/visitors', {
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
    assert.equal(
      (await api().get(`/units/${two.id}`)).body.status,
      'Vacant',
      'the refused change was rolled back whole',
    );
    const elsewhere = pms(t, site.account.token, site.account.facilities[1]!.id);
    await elsewhere.visitor((await elsewhere.unit('V103')).id, '8675309');
  });

  it('a disabled visitor’s code can be given to another; enabling the first is then a 409', async () => {
    const unit = await api().unit('V105');
    const first = await api().visitor(unit.id, '7777001');
    assert.equal((await api().post(`/visitors/${first.visitor.id}/disable`)).body.isEnabled, false);
    const second = await api().post('/visitors', {
      unitId: unit.id,
      accessCode: '7777001',
      firstName: 'Second',
      lastName: 'Holder',
      isTenant: false,
    });
    assert.equal(second.status, 201);
    const enable = await api().post(`/visitors/${first.visitor.id}/enable`);
    assert.equal(enable.status, 409);
    assert.equal(enable.body.code, 'ACCESS_CODE_IN_USE');
    await api().post(`/visitors/${first.visitor.id}/update`, { accessCode: '7777002' });
    const enabled = await api().post(`/visitors/${first.visitor.id}/enable`);
    assert.equal(enabled.status, 200);
    assert.equal(enabled.body.isEnabled, true);
    assert.equal(enabled.body.isLockedOut, false);
  });

  it('refuses an unknown unit and another facility’s unit alike (404 UNIT_NOT_FOUND on unitId)', async () => {
    const foreign = await pms(t, site.account.token, site.account.facilities[1]!.id).unit('FOREIGN');
    // Another facility's unit, the next id (none yet), and one far beyond any id.
    for (const unitId of [foreign.id, foreign.id + 1, 9_007_199_254_740_991]) {
      const r = await api().post('/visitors', {
        unitId,
        accessCode: '4242',
        firstName: 'A',
        lastName: 'B',
        isTenant: true,
      });
      assert.equal(r.status, 404, String(unitId));
      assert.equal(r.body.code, 'UNIT_NOT_FOUND');
      assert.deepEqual(
        r.body.errors.map((e: { path: string }) => e.path),
        ['unitId'],
      );
    }
    assert.equal(
      (await pms(t, site.account.token, site.account.facilities[1]!.id).get(`/units/${foreign.id}/visitors`)).body
        .length,
      0,
    );
  });

  it('refuses a visitor who is not a tenant on a vacant unit (409), and unknown time groups and access profiles (404)', async () => {
    const unit = await api().unit('V106');
    const r = await api().post('/visitors', {
      unitId: unit.id,
      accessCode: '1212',
      firstName: 'Not',
      lastName: 'Tenant',
      isTenant: false,
    });
    assert.equal(r.status, 409);
    assert.equal(r.body.code, 'UNIT_VACANT');
    const otherGroups = (await pms(t, site.account.token, site.account.facilities[1]!.id).get('/timegroups')).body;
    const g = await api().post('/visitors', {
      unitId: unit.id,
      accessCode: '1213',
      firstName: 'T',
      lastName: 'G',
      isTenant: true,
      timeGroupId: otherGroups[0].id,
    });
    assert.equal(g.status, 404);
    assert.equal(g.body.code, 'TIME_GROUP_NOT_FOUND');
    const p = await api().post('/visitors', {
      unitId: unit.id,
      accessCode: '1214',
      firstName: 'A',
      lastName: 'P',
      isTenant: true,
      accessProfileId: 999999999,
    });
    assert.equal(p.body.code, 'ACCESS_PROFILE_NOT_FOUND');
  });
});

describe('changing a visitor', () => {
  it('updates the fields given, keeps the others, replaces extendedData, moves between units', async () => {
    const unit = await api().unit('W200');
    const other = await api().unit('W201');
    const { visitor } = await api().visitor(unit.id, '3030', { email: 'old@example.com', extendedData: { a: 1 } });
    const r = await api().post(`/visitors/${visitor.id}/update`, {
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
    const taken = await api().post('/visitors', {
      unitId: other.id,
      accessCode: '4040',
      firstName: 'C',
      lastName: 'D',
      isTenant: false,
    });
    assert.equal(taken.body.code, 'ACCESS_CODE_IN_USE');
    const moved = await api().post(`/visitors/${visitor.id}/update`, { unitId: other.id });
    assert.equal(moved.body.unitNumber, 'W201');
    const bad = await api().post(`/visitors/${visitor.id}/update`, { accessCode: '12345678901', firstName: '' });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.errors.map((e: { path: string }) => e.path).sort(), ['accessCode', 'firstName']);
  });

  it('removes a visitor (204, then 404), disables and enables', async () => {
    const unit = await api().unit('W202');
    const { visitor } = await api().visitor(unit.id, '5050');
    const off = await api().post(`/visitors/${visitor.id}/disable`, '', {
      'content-type': 'application/json-patch+json',
    });
    assert.equal(off.status, 200);
    assert.equal(off.body.isLockedOut, true);
    assert.equal((await api().post(`/visitors/${visitor.id}/enable`)).body.isEnabled, true);
    assert.equal((await api().post(`/visitors/${visitor.id}/remove`)).status, 204);
    assert.equal((await api().get(`/visitors/${visitor.id}`)).status, 404);
    assert.equal((await api().post(`/visitors/${visitor.id}/remove`)).status, 404);
    assert.equal((await api().post(`/visitors/${visitor.id}/update`, { firstName: 'Ghost' })).status, 404);
    await api().visitor(unit.id, '5050'); // the removed visitor's code is free
  });
});

describe('gate codes are write-only', () => {
  it('never appear in a response, a command the PMS reads, a log line or an error message', async () => {
    const code = '9081726354';
    const unit = await api().unit('Z900');
    const { visitor } = await api().visitor(unit.id, code);
    await api().post(`/visitors/${visitor.id}/update`, { accessCode: code, firstName: 'Again' });
    await api().post('/visitors', {
      unitId: unit.id,
      accessCode: code,
      firstName: 'Dup',
      lastName: 'X',
      isTenant: false,
    });
    await api().post('/visitors', {
      unitId: unit.id,
      accessCode: `${code}9`,
      firstName: 'Long',
      lastName: 'X',
      isTenant: false,
    });
    await api().post('/visitors/refresh');
    const everything = [
      (await api().get('/visitors')).body,
      (await api().get(`/units/${unit.id}/visitors`)).body,
      await api().commands('?limit=1000'),
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

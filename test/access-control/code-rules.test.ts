// Gate codes held to their facility's rules (issue 28, SPEC §1 accessCodeRules): a code outside them is
// a 400 naming accessCode (and AccessCode, the incumbent's member) with the rules in words, before any
// command is written or any code conflict is counted; letters on a facility that allows them, compared
// without regard to case and given to the controller in upper case; a change of the rules applies to
// the codes sent after it. The rules themselves, set by the operator: test/tenancy/access-code-rules.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Schemas } from '../../clients/typescript/index.ts';
import type { EntityId } from '../../src/ids.ts';
import { ok, refused, typedClient } from '../helpers/client.ts';
import { provisionAccount, tenantFixture } from '../helpers/tenants.ts';
import { malformed, pms, polled } from './helpers.ts';

const redis: Record<string, string> = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};
const site = tenantFixture({
  facilities: 2,
  controllers: true,
  operator: true,
  env: redis,
});
const { t } = site;
/** Facility A keeps the default rules (digits, 4 to 10) unless a test says otherwise. */
const facilityA = () => site.account.facilities[0]!.id;
/** Facility B takes letters: alphanumeric, 6 to 8 (set by the first test that needs it). */
const facilityB = () => site.account.facilities[1]!.id;
const gatewayB = () => site.controllers[1]!;

type Rules = NonNullable<Schemas['AdminFacility']['accessCodeRules']>;
const setRules = (facilityId: EntityId, accessCodeRules: Partial<Rules>) =>
  ok(
    typedClient(t, site.operator).PATCH('/admin/facilities/{facilityId}', {
      params: { path: { facilityId } },
      body: { accessCodeRules },
    }),
    200,
  );

const commandCount = async (facilityId: EntityId) =>
  (await pms(t, site.account.token, facilityId).commands({ limit: 1000 })).length;

/** A visitor's new details: the whole answer. */
const update = (
  facilityId: EntityId,
  visitorId: EntityId,
  body: Schemas['UpdateVisitorRequest'],
  token = site.account.token,
) => {
  const at = pms(t, token, facilityId);
  return at.client.POST('/facilities/{facilityId}/visitors/{visitorId}/update', {
    params: { path: { ...at.path, visitorId } },
    body,
  });
};
const create = (facilityId: EntityId, body: Schemas['CreateVisitorRequest'], token = site.account.token) => {
  const at = pms(t, token, facilityId);
  return at.client.POST('/facilities/{facilityId}/visitors', { params: { path: at.path }, body });
};

describe('a code outside the facility’s rules', () => {
  it('is a 400 naming accessCode with the rules in words, on create: too short, too long, letters on a digits facility — no command, the unit untouched', async () => {
    const api = pms(t, site.account.token, facilityA());
    const unit = await api.unit('R-100');
    const before = await commandCount(facilityA());
    for (const accessCode of ['123', '12345678901', '12AB', 'abcd', '1234567890123456']) {
      const refusal = await refused(
        create(facilityA(), { unitId: unit.id, accessCode, firstName: 'Rae', lastName: 'Rule', isTenant: true }),
        400,
      );
      assert.equal(refusal.code, 'VALIDATION_FAILED', accessCode);
      assert.deepEqual(refusal.errors, [{ path: 'accessCode', message: 'must be 4 to 10 digits' }], accessCode);
      assert.deepEqual((refusal as Record<string, unknown>).AccessCode, ['must be 4 to 10 digits'], accessCode);
      assert.equal(JSON.stringify(refusal).includes(accessCode), false, 'the code is never echoed');
    }
    // A JSON number, as legacy integrations send codes: held to the same rules.
    const number = await malformed(t, site.account.token, facilityA()).post('/visitors', {
      unitId: unit.id,
      accessCode: 123,
      firstName: 'Rae',
      lastName: 'Rule',
      isTenant: true,
    });
    assert.equal(number.status, 400);
    assert.deepEqual(number.body.errors, [{ path: 'accessCode', message: 'must be 4 to 10 digits' }]);
    assert.equal(await commandCount(facilityA()), before, 'no command was written');
    const units = await ok(
      api.client.GET('/facilities/{facilityId}/units/{unitId}', { params: { path: { ...api.path, unitId: unit.id } } }),
      200,
    );
    assert.equal(units.status, 'Vacant', 'nothing was applied');
    // The bounds themselves are codes, as a string or a number.
    await api.visitor(unit.id, '0123456789');
    await api.visitor(unit.id, '1234', { isTenant: false });
    assert.equal(await commandCount(facilityA()), before + 2);
  });

  it('is a 400 naming accessCode on update, before the change: no command, the visitor’s code kept', async () => {
    const api = pms(t, site.account.token, facilityA());
    const unit = await api.unit('R-101');
    const { visitor } = await api.visitor(unit.id, '5151');
    const before = await commandCount(facilityA());
    for (const accessCode of ['515', '51515151515', '51A5']) {
      const refusal = await refused(update(facilityA(), visitor.id, { accessCode, firstName: 'Changed' }), 400);
      assert.deepEqual(refusal.errors, [{ path: 'accessCode', message: 'must be 4 to 10 digits' }], accessCode);
    }
    assert.equal(await commandCount(facilityA()), before, 'no command was written');
    const unchanged = await ok(
      api.client.GET('/facilities/{facilityId}/visitors/{visitorId}', {
        params: { path: { ...api.path, visitorId: visitor.id } },
      }),
      200,
    );
    assert.equal(unchanged.firstName, 'Pat', 'nothing was applied');
    // The code is still the visitor's: another visitor cannot take it.
    const taken = await refused(
      create(facilityA(), { unitId: unit.id, accessCode: '5151', firstName: 'T', lastName: 'K', isTenant: false }),
      400,
    );
    assert.equal(taken.code, 'ACCESS_CODE_IN_USE');
  });

  it('is named beside the fields the schema refused, in one 400 (create and update)', async () => {
    const api = pms(t, site.account.token, facilityA());
    const unit = await api.unit('R-102');
    const bad = malformed(t, site.account.token, facilityA());
    const created = await bad.post('/visitors', {
      unitId: unit.id,
      accessCode: '12',
      firstName: '',
      lastName: 'Both',
      isTenant: 'yes',
    });
    assert.equal(created.status, 400);
    assert.deepEqual(
      Object.fromEntries(created.body.errors.map((e: { path: string; message: string }) => [e.path, e.message])),
      {
        accessCode: 'must be 4 to 10 digits',
        firstName: created.body.FirstName[0],
        isTenant: created.body.IsTenant[0],
      },
    );
    assert.deepEqual(created.body.AccessCode, ['must be 4 to 10 digits']);
    // A tenant without a unit (the operation's own fault) and a code too short: both named.
    const noUnit = await refused(
      create(facilityA(), { accessCode: '99', firstName: 'No', lastName: 'Unit', isTenant: true }),
      400,
    );
    assert.deepEqual(noUnit.errors?.map((e) => e.path).sort(), ['accessCode', 'unitId']);
    const { visitor } = await api.visitor(unit.id, '6262');
    const updated = await bad.post(`/visitors/${visitor.id}/update`, { accessCode: 'AB', isTenant: 'maybe' });
    assert.equal(updated.status, 400);
    assert.deepEqual(updated.body.errors.map((e: { path: string }) => e.path).sort(), ['accessCode', 'isTenant']);
    assert.deepEqual(updated.body.AccessCode, ['must be 4 to 10 digits']);
    // The visitor's own code sent again is not at fault, even beside another bad field.
    const resent = await bad.post(`/visitors/${visitor.id}/update`, { accessCode: '6262', isTenant: 'maybe' });
    assert.deepEqual(
      resent.body.errors.map((e: { path: string }) => e.path),
      ['isTenant'],
    );
  });

  it('is refused before the code-conflict count: a key out of conflicts gets 400 for a bad code, 429 for a valid one', async () => {
    const account = await provisionAccount(t, { facilities: 1 });
    const facility = account.facilities[0]!.id;
    const api = pms(t, account.token, facility);
    const unit = await api.unit('THROTTLE-1');
    await api.visitor(unit.id, '7100');
    const own = (await api.visitor(unit.id, '7200', { isTenant: false })).visitor.id;
    // The key's allowance used up by codes in use.
    for (let i = 0; i < t.config.accessCodeConflictsPerMinute; i++)
      assert.equal((await update(facility, own, { accessCode: '7100' }, account.token)).response.status, 400);
    assert.equal((await update(facility, own, { accessCode: '7300' }, account.token)).response.status, 429);
    const bad = await refused(update(facility, own, { accessCode: '73' }, account.token), 400);
    assert.deepEqual(bad.errors, [{ path: 'accessCode', message: 'must be 4 to 10 digits' }]);
    const badNew = await refused(
      create(
        facility,
        { unitId: unit.id, accessCode: '7A00', firstName: 'N', lastName: 'W', isTenant: false },
        account.token,
      ),
      400,
    );
    assert.equal(badNew.code, 'VALIDATION_FAILED');
  });
});

describe('letters, on a facility whose rules allow them', () => {
  it('are accepted, kept in upper case, and given so to the controller', async () => {
    await setRules(facilityB(), { characters: 'alphanumeric', minLength: 6, maxLength: 8 });
    const api = pms(t, site.account.token, facilityB());
    const unit = await api.unit('L-100');
    const { visitor } = await api.visitor(unit.id, 'ab12Cd');
    const commands = await polled(t, gatewayB(), { after: 0, limit: 1000 });
    const delivered = commands
      .map((c) => c.payload as { visitor?: { id: number; accessCode?: string } })
      .findLast((p) => p.visitor?.id === visitor.id);
    assert.equal(delivered?.visitor?.accessCode, 'AB12CD');
    // Digits alone are letters-or-digits too; a code outside the lengths is named by these rules.
    await api.visitor(unit.id, '123456', { isTenant: false });
    const short = await refused(
      create(facilityB(), { unitId: unit.id, accessCode: 'AB12C', firstName: 'S', lastName: 'H', isTenant: false }),
      400,
    );
    assert.deepEqual(short.errors, [{ path: 'accessCode', message: 'must be 6 to 8 letters or digits' }]);
    const symbols = await refused(
      create(facilityB(), { unitId: unit.id, accessCode: 'AB-12C', firstName: 'S', lastName: 'H', isTenant: false }),
      400,
    );
    assert.deepEqual(symbols.errors, [{ path: 'accessCode', message: 'must be 6 to 8 letters or digits' }]);
  });

  it('compare without regard to case: "ab12ef" and "AB12EF" are one code', async () => {
    const api = pms(t, site.account.token, facilityB());
    const unit = await api.unit('L-101');
    await api.visitor(unit.id, 'ab12ef');
    const taken = await refused(
      create(facilityB(), { unitId: unit.id, accessCode: 'AB12EF', firstName: 'C', lastName: 'S', isTenant: false }),
      400,
    );
    assert.equal(taken.code, 'ACCESS_CODE_IN_USE');
    assert.deepEqual(
      taken.errors?.map((e) => e.path),
      ['accessCode'],
    );
  });
});

describe('a change of the rules', () => {
  it('applies to the codes sent after it; the codes visitors hold are kept, and may be sent again', async () => {
    const api = pms(t, site.account.token, facilityA());
    const unit = await api.unit('C-100');
    const { visitor } = await api.visitor(unit.id, '4444');
    await setRules(facilityA(), { minLength: 6 });
    try {
      const refusal = await refused(
        create(facilityA(), { unitId: unit.id, accessCode: '4545', firstName: 'N', lastName: 'W', isTenant: false }),
        400,
      );
      assert.deepEqual(refusal.errors, [{ path: 'accessCode', message: 'must be 6 to 10 digits' }]);
      const before = await commandCount(facilityA());
      // An update that sends no code, or the visitor's own code again (a PMS that sends its whole model), keeps it.
      assert.equal((await ok(update(facilityA(), visitor.id, { firstName: 'Kept' }), 200)).firstName, 'Kept');
      await ok(update(facilityA(), visitor.id, { accessCode: '4444', lastName: 'Same' }), 200);
      assert.equal(await commandCount(facilityA()), before + 2);
      const other = await refused(update(facilityA(), visitor.id, { accessCode: '4445' }), 400);
      assert.deepEqual(other.errors, [{ path: 'accessCode', message: 'must be 6 to 10 digits' }]);
      await ok(update(facilityA(), visitor.id, { accessCode: '444444' }), 200);
    } finally {
      await setRules(facilityA(), { minLength: 4 });
    }
  });
});

// A facility's gate-code rules (issue 28, SPEC §1 accessCodeRules): set by the operator when the
// facility is created and changed after (POST and PATCH /admin/facilities), read on the admin views
// and by the PMS (GET /facilities, /facilities/{id}, /facilities/detail), every bad input a 400
// naming its sub-field. The rules' effect on visitors' codes: test/access-control/code-rules.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ok, refused, typedClient } from '../helpers/client.ts';
import { bearer, tenantFixture } from '../helpers/tenants.ts';

const site = tenantFixture({ operator: true });
const { t } = site;
const admin = () => typedClient(t, site.operator);
const DEFAULT = { characters: 'digits', minLength: 4, maxLength: 10 };

/** A raw admin request: only for bodies the document's types cannot say, sent so on purpose. */
const raw = (method: 'POST' | 'PATCH', url: string, payload: unknown) =>
  t.app.inject({ method, url, payload: payload as object, headers: bearer(site.operator) });

const patch = (
  facilityId: number,
  accessCodeRules: { characters?: 'digits' | 'alphanumeric'; minLength?: number; maxLength?: number },
) => admin().PATCH('/admin/facilities/{facilityId}', { params: { path: { facilityId } }, body: { accessCodeRules } });

async function newFacility(accessCodeRules?: {
  characters?: 'digits' | 'alphanumeric';
  minLength?: number;
  maxLength?: number;
}) {
  return ok(
    admin().POST('/admin/facilities', {
      body: {
        accountId: site.account.accountId,
        name: 'Rules St',
        timeZone: 'UTC',
        ...(accessCodeRules ? { accessCodeRules } : {}),
      },
    }),
    201,
  );
}

describe('gate-code rules, set by the operator', () => {
  it('start as digits, 4 to 10; a facility may be created with its own, sub-fields left out taking the default', async () => {
    assert.deepEqual((await newFacility()).accessCodeRules, DEFAULT);
    assert.deepEqual((await newFacility({ characters: 'alphanumeric', minLength: 6, maxLength: 8 })).accessCodeRules, {
      characters: 'alphanumeric',
      minLength: 6,
      maxLength: 8,
    });
    const partial = await newFacility({ maxLength: 16 });
    assert.deepEqual(partial.accessCodeRules, { characters: 'digits', minLength: 4, maxLength: 16 });
    const listed = await ok(
      admin().GET('/admin/facilities', { params: { query: { accountId: site.account.accountId } } }),
      200,
    );
    assert.deepEqual(listed.find((f) => f.id === partial.id)?.accessCodeRules, partial.accessCodeRules);
  });

  it('are changed with PATCH: the sub-fields sent, the others kept; the facility otherwise unchanged', async () => {
    const facility = await newFacility();
    const changed = await ok(patch(facility.id, { characters: 'alphanumeric', minLength: 6 }), 200);
    assert.deepEqual(changed, {
      ...facility,
      accessCodeRules: { characters: 'alphanumeric', minLength: 6, maxLength: 10 },
    });
    const again = await ok(patch(facility.id, { maxLength: 6 }), 200);
    assert.deepEqual(again.accessCodeRules, { characters: 'alphanumeric', minLength: 6, maxLength: 6 });
    const back = await ok(
      patch(facility.id, DEFAULT as { characters: 'digits'; minLength: number; maxLength: number }),
      200,
    );
    assert.deepEqual(back.accessCodeRules, DEFAULT);
  });

  it('are what the PMS reads: GET /facilities, /facilities/{id} and /facilities/detail', async () => {
    const facilityId = site.facilityId;
    const rules = { characters: 'alphanumeric' as const, minLength: 5, maxLength: 12 };
    await ok(patch(facilityId, rules), 200);
    const pms = typedClient(t, site.account.token);
    const list = await ok(pms.GET('/facilities'), 200);
    assert.deepEqual(list.find((f) => f.id === facilityId)?.accessCodeRules, rules);
    const one = await ok(pms.GET('/facilities/{facilityId}', { params: { path: { facilityId } } }), 200);
    assert.deepEqual(one.accessCodeRules, rules);
    const propertyNumber = site.account.facilities[0]!.propertyNumber!;
    const detail = await ok(pms.GET('/facilities/detail', { params: { query: { propertyNumber } } }), 200);
    assert.deepEqual(detail.accessCodeRules, rules);
  });

  it('refuses a minimum above the maximum, an unknown characters value, lengths out of 1–16: each a 400 naming its sub-field, nothing changed', async () => {
    const facility = await newFacility({ characters: 'digits', minLength: 6, maxLength: 8 });
    const cases: [unknown, string[]][] = [
      [{ minLength: 9 }, ['accessCodeRules.minLength']],
      [{ maxLength: 5 }, ['accessCodeRules.maxLength']],
      [{ minLength: 12, maxLength: 10 }, ['accessCodeRules.maxLength']],
      [{ characters: 'letters' }, ['accessCodeRules.characters']],
      [{ characters: 'DIGITS' }, ['accessCodeRules.characters']],
      [{ minLength: 0 }, ['accessCodeRules.minLength']],
      [{ maxLength: 17 }, ['accessCodeRules.maxLength']],
      [{ minLength: 4.5, maxLength: '8' }, ['accessCodeRules.maxLength', 'accessCodeRules.minLength']],
      [
        { characters: 'emoji', minLength: -1, maxLength: 99 },
        ['accessCodeRules.characters', 'accessCodeRules.maxLength', 'accessCodeRules.minLength'],
      ],
      [{}, ['accessCodeRules']],
      [null, ['accessCodeRules']],
    ];
    for (const [accessCodeRules, paths] of cases) {
      const answer = await raw('PATCH', `/admin/facilities/${facility.id}`, { accessCodeRules });
      assert.equal(answer.statusCode, 400, `${JSON.stringify(accessCodeRules)}: ${answer.body}`);
      assert.deepEqual(
        answer
          .json()
          .errors.map((e: { path: string }) => e.path)
          .sort(),
        paths,
        JSON.stringify(accessCodeRules),
      );
    }
    const missing = await raw('PATCH', `/admin/facilities/${facility.id}`, {});
    assert.deepEqual(missing.json().errors, [{ path: 'accessCodeRules', message: 'is required' }]);
    // Said in words: the bound it contradicts, the range a length has.
    const order = await raw('PATCH', `/admin/facilities/${facility.id}`, { accessCodeRules: { maxLength: 5 } });
    assert.deepEqual(order.json().errors, [
      { path: 'accessCodeRules.maxLength', message: 'must be at least minLength (6)' },
    ]);
    const listed = await ok(
      admin().GET('/admin/facilities', { params: { query: { accountId: site.account.accountId } } }),
      200,
    );
    assert.deepEqual(listed.find((f) => f.id === facility.id)?.accessCodeRules, {
      characters: 'digits',
      minLength: 6,
      maxLength: 8,
    });
  });

  it('refuses bad rules when a facility is created, with its other faults, and creates nothing', async () => {
    const before = (await ok(admin().GET('/admin/facilities'), 200)).length;
    const answer = await raw('POST', '/admin/facilities', {
      accountId: site.account.accountId,
      name: '',
      timeZone: 'UTC',
      accessCodeRules: { characters: 'alphanumeric', minLength: 10, maxLength: 8 },
    });
    assert.equal(answer.statusCode, 400);
    assert.deepEqual(
      answer
        .json()
        .errors.map((e: { path: string }) => e.path)
        .sort(),
      ['accessCodeRules.maxLength', 'name'],
    );
    const unknown = await raw('POST', '/admin/facilities', {
      accountId: site.account.accountId,
      name: 'X',
      timeZone: 'UTC',
      accessCodeRules: { characters: 'hex' },
    });
    assert.deepEqual(
      unknown.json().errors.map((e: { path: string }) => e.path),
      ['accessCodeRules.characters'],
    );
    assert.equal((await ok(admin().GET('/admin/facilities'), 200)).length, before);
  });

  it('a facility that does not exist is 404; a PMS token may not change rules (403)', async () => {
    await refused(patch(999_999_999, { minLength: 5 }), 404);
    await refused(
      typedClient(t, site.account.token).PATCH('/admin/facilities/{facilityId}', {
        params: { path: { facilityId: site.facilityId } },
        body: { accessCodeRules: { minLength: 5 } },
      }),
      403,
    );
  });
});

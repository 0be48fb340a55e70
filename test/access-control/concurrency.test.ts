// Changes at the same moment: a code is granted once however many ask for it at once, and each
// facility's command sequence stays gap-free and in commit order under concurrent changes.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ok } from '../helpers/client.ts';
import { tenantFixture } from '../helpers/tenants.ts';
import { pms } from './helpers.ts';

// The race for a code, not the throttle of ACCESS_CODE_IN_USE answers (code-conflicts.test.ts):
// room for the seven conflicts of one key.
const site = tenantFixture({ facilities: 3, env: { ACCESS_CODE_CONFLICTS_PER_MINUTE: '100' } });
const { t } = site;

it('eight visitors asking for the same code at once: one gets it, seven get 400 naming accessCode', async () => {
  const api = pms(t, site.account.token, site.account.facilities[0]!.id);
  const units = await Promise.all([...Array(8).keys()].map((i) => api.unit(`RACE-${i}`)));
  const answers = await Promise.all(
    units.map((u) =>
      api.client.POST('/facilities/{facilityId}/visitors', {
        params: { path: api.path },
        body: { unitId: u.id, accessCode: '5550001', firstName: 'Racer', lastName: u.unitNumber, isTenant: true },
      }),
    ),
  );
  assert.deepEqual(answers.map((a) => a.response.status).sort(), [201, 400, 400, 400, 400, 400, 400, 400]);
  for (const refused of answers.filter((a) => a.response.status === 400))
    assert.deepEqual(
      refused.error?.errors?.map((e) => e.path),
      ['accessCode'],
    );
  const listed = await ok(api.client.GET('/facilities/{facilityId}/units', { params: { path: api.path } }), 200);
  const rented = listed.filter((u) => u.unitNumber.startsWith('RACE-') && u.status === 'Rented');
  assert.equal(rented.length, 1, 'the refused changes left their units Vacant');
});

it('concurrent changes on several facilities: every one answered, each facility’s sequence gap-free', async () => {
  const work = site.account.facilities.flatMap((f) => {
    const api = pms(t, site.account.token, f.id);
    return [...Array(12).keys()].map(async (i) => {
      const unit = await api.unit(`C-${i}`);
      await api.visitor(unit.id, String(700000 + i));
      return api.client.POST('/facilities/{facilityId}/units/{unitId}/disable', {
        params: { path: { ...api.path, unitId: unit.id } },
      });
    });
  });
  const answers = await Promise.all(work);
  assert.ok(answers.every((a) => a.response.status === 200));
  for (const f of site.account.facilities.slice(1)) {
    const commands = await pms(t, site.account.token, f.id).commands({ limit: 1000 });
    assert.equal(commands.length, 36);
    assert.deepEqual(
      commands.map((c) => c.sequence),
      [...Array(36).keys()].map((i) => i + 1),
    );
  }
});

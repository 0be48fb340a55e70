// resolveNames: the unit numbers and visitor names of the ids a controller reports, at its facility only.
import type { EntityId } from '../../src/ids.ts';
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { resolveNames } from '../../src/events/names.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { bearer, provisionAccount } from '../helpers/tenants.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

it("resolves the facility's units and visitors, and nothing for another facility's or unknown ids", async () => {
  const account = await provisionAccount(t, { facilities: 2 });
  const [facility, other] = account.facilities;
  const post = (url: string, payload: object) =>
    t.app.inject({ method: 'POST', url, headers: bearer(account.token), payload });
  const unitId: EntityId = (await post(`/facilities/${facility!.id}/units`, { unitNumber: 'C7' })).json().id;
  const visitorId: EntityId = (
    await post(`/facilities/${facility!.id}/visitors`, {
      unitId,
      accessCode: '1357',
      firstName: 'Ann',
      lastName: 'Lee',
      isTenant: true,
    })
  ).json().visitor.id;
  const foreignUnit: EntityId = (await post(`/facilities/${other!.id}/units`, { unitNumber: 'D8' })).json().id;
  const db = t.services.database.db;

  const present = await db
    .transaction()
    .execute((trx) => resolveNames(trx, facility!.id, [unitId, foreignUnit, 999_999_999, unitId], [visitorId]));
  assert.deepEqual([...present.unitNumbers], [[unitId, 'C7']]);
  assert.deepEqual([...present.visitorNames], [[visitorId, 'Ann Lee']]);
  const elsewhere = await db.transaction().execute((trx) => resolveNames(trx, other!.id, [unitId], [visitorId]));
  assert.equal(elsewhere.unitNumbers.size + elsewhere.visitorNames.size, 0);
  const none = await db.transaction().execute((trx) => resolveNames(trx, facility!.id, [], []));
  assert.equal(none.unitNumbers.size + none.visitorNames.size, 0);
});

// resolveNames: tolerant of the access-control tables being absent, exact when they are there.
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

it('resolves nothing while the tables are absent, and the facility’s units and visitors once they exist', async () => {
  const account = await provisionAccount(t, { facilities: 2 });
  const [facility, other] = account.facilities;
  const post = (url: string, payload: object) =>
    t.app.inject({ method: 'POST', url, headers: bearer(account.token), payload });
  const unitId: string = (await post(`/facilities/${facility!.id}/units`, { unitNumber: 'C7' })).json().id;
  const visitorId: string = (
    await post(`/facilities/${facility!.id}/visitors`, {
      unitId,
      accessCode: '1357',
      firstName: 'Ann',
      lastName: 'Lee',
      isTenant: true,
    })
  ).json().visitor.id;
  const foreignUnit: string = (await post(`/facilities/${other!.id}/units`, { unitNumber: 'D8' })).json().id;
  const db = t.services.database.db;
  const pool = t.services.database.pool;

  // Before migration 0005 (simulated in this test's own database): the ids name nothing.
  await pool.query('alter table units rename to units_hidden');
  await pool.query('alter table visitors rename to visitors_hidden');
  const absent = await db.transaction().execute((trx) => resolveNames(trx, facility!.id, [unitId], [visitorId]));
  assert.equal(absent.unitNumbers.size + absent.visitorNames.size, 0);
  await pool.query('alter table units_hidden rename to units');
  await pool.query('alter table visitors_hidden rename to visitors');

  const present = await db
    .transaction()
    .execute((trx) =>
      resolveNames(
        trx,
        facility!.id,
        [unitId.toUpperCase(), foreignUnit, 'not-a-uuid', "x'; drop table units; --"],
        [visitorId],
      ),
    );
  assert.deepEqual([...present.unitNumbers], [[unitId, 'C7']]);
  assert.deepEqual([...present.visitorNames], [[visitorId, 'Ann Lee']]);
});

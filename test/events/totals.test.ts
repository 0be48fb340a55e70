// A page's total: counted exactly up to EXACT_TOTAL_CAP, beyond it the planner's estimate, flagged
// (metadata.totalResultsExact, X-Total-Count-Exact on a paged export).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EXACT_TOTAL_CAP } from '../../src/events/limits.ts';
import { typedClient } from '../helpers/client.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { provisionAccount, type ProvisionedAccount } from '../helpers/tenants.ts';
import { getJson } from './helpers.ts';

let t: TestApp;
let acme: ProvisionedAccount;
const ROWS = EXACT_TOTAL_CAP + 2_000;

before(async () => {
  t = await startTestApp();
  acme = await provisionAccount(t, { facilities: 1, timeZone: 'Europe/Zurich' });
  // One in four rows is a Door Alarm (10), the rest Access Granted (18).
  await t.services.database.pool.query(
    `insert into gateway_events (account_id, facility_id, facility_name, time_zone, gwc_event_id, event_type, occurred_at, received_at)
     select $1, $2, 'Facility 1', 'Europe/Zurich', 'total-' || n, case when n % 4 = 0 then 10 else 18 end,
            now() - (n || ' seconds')::interval, now()
       from generate_series(1, ${ROWS}) as n`,
    [acme.accountId, acme.facilities[0]!.id],
  );
  await t.services.database.pool.query('analyze gateway_events');
});
after(() => t.close());

describe('page totals', () => {
  const url = (query: string) => `/gatewayevents/accounts/${acme.accountId}?${query}`;

  it('are exact up to the cap', async () => {
    const page = await getJson(t, acme.token, url('eventTypes=10&pageSize=1000'));
    assert.equal(page.status, 200);
    assert.equal(page.body.metadata.totalResults, ROWS / 4);
    assert.equal(page.body.metadata.totalResultsExact, true);
    assert.equal(page.body.metadata.totalPages, Math.ceil(ROWS / 4 / 1000));
    const next = await getJson(
      t,
      acme.token,
      url(`eventTypes=10&pageSize=1000&cursor=${page.body.metadata.nextCursor}`),
    );
    assert.equal(next.body.metadata.totalResults, ROWS / 4);
    assert.equal(next.body.metadata.totalResultsExact, true);
  });

  it('are an estimate above the cap, flagged, and never at or below it', async () => {
    const page = await getJson(t, acme.token, url('pageSize=1000'));
    assert.equal(page.status, 200);
    const { totalResults, totalResultsExact, totalPages } = page.body.metadata;
    assert.equal(totalResultsExact, false);
    assert.ok(totalResults > EXACT_TOTAL_CAP, `${totalResults}`);
    assert.equal(totalPages, Math.ceil(totalResults / 1000));
    assert.equal(page.body.items.length, 1000);
    // The walk itself is unaffected: the cursor goes on to the next 1,000.
    const next = await getJson(t, acme.token, url(`pageSize=1000&cursor=${page.body.metadata.nextCursor}`));
    assert.equal(next.body.items.length, 1000);
    assert.equal(next.body.metadata.totalResultsExact, false);
  });

  it('are flagged on a paged export too', async () => {
    const exportPage = async (query: { eventTypes?: string[]; pageSize: number }) => {
      const { response } = await typedClient(t, acme.token).GET('/gatewayevents/accounts/{accountId}/export', {
        params: { path: { accountId: acme.accountId }, query },
        parseAs: 'text',
      });
      assert.equal(response.status, 200);
      return response.headers;
    };
    const exact = await exportPage({ eventTypes: ['10'], pageSize: 10 });
    assert.equal(exact.get('x-total-count'), String(ROWS / 4));
    assert.equal(exact.get('x-total-count-exact'), 'true');
    const estimated = await exportPage({ pageSize: 10 });
    assert.ok(Number(estimated.get('x-total-count')) > EXACT_TOTAL_CAP);
    assert.equal(estimated.get('x-total-count-exact'), 'false');
  });
});

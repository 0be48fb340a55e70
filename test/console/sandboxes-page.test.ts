// The support console's Sandboxes view in a real browser (issue 30): integrators' sandboxes listed apart
// from the production accounts, each badged, with its owner.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { consoleFixture } from '../helpers/browser.ts';
import { inject } from '../helpers/http.ts';
import { provisionAccount } from '../helpers/tenants.ts';

const session = consoleFixture();

it('lists the sandboxes apart, badged, with their owner; no production account among them', async () => {
  const account = await provisionAccount(session.t, { name: 'Owner Storage' });
  const created = await inject(session.t.app, 'POST', '/sandboxes', {
    token: account.token,
    body: { name: '<i>Integration</i> tests' },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const { page, problems } = await session.signedIn('Sandbox desk');
  await page.click('button[data-view=sandboxes]');
  const row = page.locator(`#sandbox-list tr[data-account-id="${created.body.id}"]`);
  await row.waitFor();
  assert.equal(await row.locator('th').textContent(), '<i>Integration</i> tests sandbox');
  assert.equal(await row.locator('th .badge').textContent(), 'sandbox');
  assert.equal(await row.locator('td').first().textContent(), `account ${account.accountId}`);
  assert.equal(await page.locator(`#sandbox-list tr[data-account-id="${account.accountId}"]`).count(), 0);
  assert.equal(await page.locator('#sandbox-list tr').count(), 2, 'a header and the one sandbox');
  assert.deepEqual(problems, []);
});

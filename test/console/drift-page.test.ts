// Drift in the console (issue 28), in a real browser (Debian's chromium through playwright-core): a
// facility's page lists its drifts — open while the controller differs from the PMS, with what
// differed and how many corrections were queued, healed once its digest agrees again.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { applyInPlace, digestOf, emptyState, itemsOf } from '../../src/simulator/controller.ts';
import { consoleFixture } from '../helpers/browser.ts';
import { ok, typedClient } from '../helpers/client.ts';
import { gatewayToken, provisionAccount } from '../helpers/tenants.ts';

const session = consoleFixture();

it('shows a drift open with what differed, then healed', async () => {
  const account = await provisionAccount(session.t, { name: 'Drifting Storage' });
  const facility = account.facilities[0]!;
  const path = { facilityId: facility.id };
  const unit = await ok(
    typedClient(session.t, account.token).POST('/facilities/{facilityId}/units', {
      params: { path },
      body: { unitNumber: 'C-1' },
    }),
    201,
  );
  // A controller that never got the unit: its digest differs, its items of that bucket lack it.
  const gateway = typedClient(session.t, (await gatewayToken(session.t, facility.id)).token);
  const state = emptyState();
  const first = await ok(gateway.POST('/gateway/v1/digest', { body: { appliedSequence: 0, ...digestOf(state) } }), 200);
  assert.equal(first.status, 'differs');
  const found = await ok(
    gateway.POST('/gateway/v1/digest/items', { body: { appliedSequence: 1, ...itemsOf(state, first.buckets!) } }),
    200,
  );
  assert.equal(found.corrections, 1);

  const { page, problems } = await session.signedIn('Drift desk');
  const open = async () => {
    await page.click('button[data-view=facilities]');
    await page
      .locator(`#status-list tr[data-facility-id="${facility.id}"]`)
      .getByRole('button', { name: 'Open' })
      .click();
  };
  await open();
  const row = page.locator(`#drifts tr[data-drift-id="${found.driftId}"]`);
  await row.waitFor();
  assert.equal(await row.locator('td.status').textContent(), 'open');
  assert.match((await row.locator('td.status').getAttribute('class')) ?? '', /status-warning/);
  assert.equal(await row.locator('td.items').textContent(), `unit ${unit.id} missing`);
  assert.equal(await row.locator('td.corrections').textContent(), '1 correction');
  assert.match((await page.locator('#detail h3', { hasText: 'Drift' }).textContent()) ?? '', /\(1 open\)/);

  // The controller applies its commands (the creation and the correction); its next digest agrees.
  const { commands } = await ok(gateway.GET('/gateway/v1/commands', { params: { query: { after: 0 } } }), 200);
  for (const command of commands) applyInPlace(state, command);
  const last = commands.at(-1)!.sequence;
  assert.equal(
    (await ok(gateway.POST('/gateway/v1/digest', { body: { appliedSequence: last, ...digestOf(state) } }), 200)).status,
    'in-sync',
  );
  await page.click('#detail-close');
  await open();
  await page.waitForSelector(`#drifts tr[data-drift-id="${found.driftId}"] td.status:has-text("healed")`);
  assert.notEqual(await row.locator('td.healed').textContent(), '');
  assert.deepEqual(problems, []);
  await page.close();
});

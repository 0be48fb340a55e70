// Issue 28 in the console, in a real browser (Debian's chromium through playwright-core): a facility's
// page lists the remote actions asked for — who, why, their result, a failure with the controller's
// reason — and its failed commands; an operator's remote action carries the reason typed.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { storeEvents } from '../events/helpers.ts';
import { consoleFixture } from '../helpers/browser.ts';
import { ok, typedClient } from '../helpers/client.ts';
import { gatewayToken, provisionAccount } from '../helpers/tenants.ts';

const session = consoleFixture();

it('shows a facility’s remote actions with who asked, why and the result, its failed commands, and sends a reason', async () => {
  const account = await provisionAccount(session.t, { name: 'Reasoned Storage' });
  const facility = account.facilities[0]!;
  const pms = typedClient(session.t, account.token);
  const path = { facilityId: facility.id };
  // The PMS asks for a lockdown, with a reason; the controller fails it, with its own.
  const lockdown = await ok(
    pms.POST('/facilities/{facilityId}/lockdown/enable', {
      params: { path },
      body: { reason: 'Break-in at unit <b>9</b>' },
    }),
    200,
  );
  const gateway = (await gatewayToken(session.t, facility.id)).token;
  await storeEvents(session.t, gateway, [
    {
      eventId: randomUUID(),
      eventType: 3,
      occurredAt: new Date().toISOString(),
      data: { commandId: lockdown.command!.id, result: 'failed', reason: 'Lockdown relay not wired' },
    },
  ]);

  const { page, problems } = await session.signedIn('Reason desk');
  await page.click('button[data-view=facilities]');
  const row = page.locator(`#status-list tr[data-facility-id="${facility.id}"]`);
  await row.getByRole('button', { name: 'Open' }).click();
  const asked = page.locator(`#remote-actions tr[data-remote-action-id="${lockdown.remoteActionId}"]`);
  await asked.waitFor();
  assert.equal(await asked.locator('td.action').textContent(), 'lockdown.enable');
  assert.equal(await asked.locator('td.reason').textContent(), 'Break-in at unit <b>9</b>', 'text, not markup');
  assert.equal(await asked.locator('td.who').textContent(), `account ${account.accountId} (${account.pms.clientId})`);
  assert.equal(await asked.locator('td.result').textContent(), 'failed Lockdown relay not wired');
  assert.match((await asked.locator('td.result').getAttribute('class')) ?? '', /status-error/);
  const failed = page.locator(`#failed-commands tr[data-command-id="${lockdown.command!.id}"]`);
  assert.equal(await failed.locator('td.reason').textContent(), 'Lockdown relay not wired');
  assert.match((await page.locator('#detail h3', { hasText: 'Failed commands' }).textContent()) ?? '', /\(1\)/);

  // The operator opens the gate with a reason: recorded as the operator's, with it, and listed.
  await page.fill('#remote-reason', 'Tenant called support: gate stuck');
  await page.getByRole('button', { name: 'Open Main Gate' }).click();
  await page.click('#confirm-yes');
  await page.waitForSelector('#status:has-text("Main Gate: open: sent to the controller.")');
  const opened = page.locator('#remote-actions tr', { hasText: 'Main Gate: open' });
  await opened.waitFor();
  assert.equal(await opened.locator('td.reason').textContent(), 'Tenant called support: gate stuck');
  assert.match((await opened.locator('td.who').textContent()) ?? '', /^operator /);
  assert.equal(await opened.locator('td.result').textContent(), 'pending');
  const [newest] = await ok(pms.GET('/facilities/{facilityId}/remote-actions', { params: { path } }), 200);
  assert.deepEqual(
    [newest?.action, newest?.reason, newest?.requestedBy.kind],
    ['action-group.open', 'Tenant called support: gate stuck', 'operator'],
  );

  assert.deepEqual(problems, []);
  await page.close();
});

// The operator's facility page of the support console in a real browser (Debian's chromium through
// playwright-core): the status list with its colours and messages, a facility's devices and alarms,
// and the remote actions, each confirmed in the page before it is sent.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { postEvents } from '../events/helpers.ts';
import { consoleFixture } from '../helpers/browser.ts';
import { gatewayToken, provisionAccount } from '../helpers/tenants.ts';

const session = consoleFixture();

/** A PNG's width and height, from its IHDR chunk. */
function pngSize(png: Buffer): { width: number; height: number } {
  assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

it('shows the status list in colour, a facility’s devices and alarms, and sends confirmed remote actions', async () => {
  const account = await provisionAccount(session.t, { facilities: 2, name: 'Colour Storage <b>Co</b>' });
  const [north, south] = account.facilities;
  const gateway = (await gatewayToken(session.t, north!.id)).token;
  const now = new Date().toISOString();
  const posted = await postEvents(session.t, gateway, [
    { eventId: randomUUID(), eventType: 11, occurredAt: now, deviceId: 'door-5', deviceName: 'Door 5' },
    { eventId: randomUUID(), eventType: 10, occurredAt: now, deviceId: 'gate-1', deviceName: 'Front Gate' },
  ]);
  assert.equal(posted.status, 200);
  const { page, problems } = await session.signedIn('Ops desk');
  await page.click('button[data-view=facilities]');

  // The status list: words, messages and colours.
  const northRow = page.locator(`#status-list tr[data-facility-id="${north!.id}"]`);
  const southRow = page.locator(`#status-list tr[data-facility-id="${south!.id}"]`);
  await northRow.waitFor();
  const cells = await northRow.locator('td.status').allTextContents();
  assert.match(cells[0]!, /^ok Connected; last heard at /);
  assert.equal(cells[1], 'error 1 device offline: Door 5.');
  assert.equal(cells[2], 'error 1 active alarm: Door alarm at Front Gate.');
  assert.match(cells[3]!, /^ok /);
  assert.match(
    (await southRow.locator('td.status').first().textContent()) ?? '',
    /^error The gateway controller has never connected\./,
  );
  assert.match(
    (await northRow.locator('th').textContent()) ?? '',
    /Colour Storage <b>Co<\/b>/,
    'names are text, not markup',
  );
  const background = (cell: number) =>
    northRow
      .locator('td.status')
      .nth(cell)
      .evaluate((td) => (globalThis as any).getComputedStyle(td).backgroundColor);
  assert.equal(await background(1), 'rgb(251, 230, 230)', 'error is red');
  assert.equal(await background(0), 'rgb(231, 245, 234)', 'ok is green');
  const listShot = await page.screenshot({ fullPage: true });
  assert.ok(pngSize(listShot).width >= 1280);

  // The facility's page: overall status, devices, alarms, actions.
  await northRow.getByRole('button', { name: 'Open' }).click();
  await page.waitForSelector('#detail[open] #devices');
  assert.match((await page.locator('#overall').textContent()) ?? '', /^error /);
  assert.deepEqual(await page.locator('#devices tr').evaluateAll((rows) => rows.map((r) => r.dataset.deviceId)), [
    'door-5',
    'gate-1',
  ]);
  assert.equal(await page.locator('#devices tr[data-device-id="door-5"] td.status').textContent(), 'offline');
  assert.match((await page.locator('#alarms li').textContent()) ?? '', /^Door Alarm at Front Gate since /);

  // A remote open, cancelled at the confirmation: nothing sent.
  const commandsOf = async () =>
    await session.t.services.database.db
      .selectFrom('commands')
      .select(['type', 'payload'])
      .where('facility_id', '=', north!.id)
      .execute();
  const openGate = page.getByRole('button', { name: 'Open Main Gate' });
  await openGate.click();
  await page.waitForSelector('#confirm[open]:has-text("Open Main Gate at Facility 1?")');
  await page.click('#confirm-no');
  await page.waitForSelector('#status:has-text("Main Gate: open: not sent.")');
  assert.equal((await commandsOf()).length, 0);

  // Confirmed: sent.
  await openGate.click();
  await page.click('#confirm-yes');
  await page.waitForSelector('#status:has-text("Main Gate: open: sent to the controller.")');
  assert.deepEqual(
    (await commandsOf()).map((c) => [c.type, (c.payload as any).action]),
    [['action-group.run', 'open']],
  );

  // Lockdown on: asked for at once, not yet reported.
  await page.click('button[data-action=lockdown-enable]');
  await page.waitForSelector('#confirm-text:has-text("Turn lockdown ON at Facility 1?")');
  await page.click('#confirm-yes');
  await page.waitForSelector('#switches tr[data-switch=lockdown] td.desired:has-text("on")');
  assert.equal(await page.locator('#switches tr[data-switch=lockdown] td.reported').textContent(), 'never reported');
  const facilityShot = await page.screenshot({ fullPage: true });
  assert.ok(pngSize(facilityShot).height >= 900);
  // Kept for a person to look at (the assertions above are what the test checks).
  fs.writeFileSync(path.join(os.tmpdir(), 'gatehouse-console-facility.png'), facilityShot);

  assert.deepEqual(problems, []);
  await page.close();
});

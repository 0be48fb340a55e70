// The console's maintenance windows (issue 28) in a real browser (Debian's chromium through
// playwright-core): a facility's page lists its windows, schedules one in the facility's own time
// zone, shows the facility in maintenance while one is underway, and ends one, confirmed first.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { consoleFixture } from '../helpers/browser.ts';
import { provisionAccount } from '../helpers/tenants.ts';

const session = consoleFixture();

it('schedules a window in the facility’s time, shows maintenance while one is underway, and ends it when confirmed', async () => {
  const account = await provisionAccount(session.t, { facilities: 1, timeZone: 'America/Denver' });
  const facility = account.facilities[0]!;
  const windows = () =>
    session.t.services.database.db
      .selectFrom('maintenance_windows')
      .select(['id', 'starts_at', 'ends_at', 'reason', 'cancelled_at'])
      .where('facility_id', '=', facility.id)
      .orderBy('id')
      .execute();
  const { page, problems } = await session.signedIn('Maintenance desk');
  await page.click('button[data-view=facilities]');
  await page
    .locator(`#status-list tr[data-facility-id="${facility.id}"]`)
    .getByRole('button', { name: 'Open' })
    .click();
  await page.waitForSelector('#detail[open] #maintenance-form');
  assert.equal(await page.locator('p#maintenance-windows').textContent(), 'None scheduled.');
  assert.match((await page.locator('#maintenance-form').textContent()) ?? '', /Starts \(America\/Denver\)/);

  // A window ahead, in the facility's time: 02:00–03:00 in Denver in January is 09:00–10:00 UTC.
  await page.fill('#maintenance-form input[name=startsAt]', '2030-01-15T02:00');
  await page.fill('#maintenance-form input[name=endsAt]', '2030-01-15T03:00');
  await page.fill('#maintenance-form input[name=reason]', 'Gateway <b>swap</b>');
  await page.click('#maintenance-form button[type=submit]');
  await page.waitForSelector('#maintenance-windows tr');
  const [ahead] = await windows();
  assert.deepEqual(
    [ahead?.starts_at.toISOString(), ahead?.ends_at.toISOString(), ahead?.reason],
    ['2030-01-15T09:00:00.000Z', '2030-01-15T10:00:00.000Z', 'Gateway <b>swap</b>'],
  );
  const aheadRow = page.locator(`#maintenance-windows tr[data-window-id="${ahead!.id}"]`);
  assert.equal(await aheadRow.locator('td.reason').textContent(), 'Gateway <b>swap</b>', 'text, not markup');
  assert.equal(await aheadRow.locator('td.state').textContent(), 'scheduled');
  assert.equal((await page.locator('#overall').textContent())?.startsWith('error '), true, 'not yet underway');

  // One from now (the form's own times: now, for 30 minutes): the facility shows maintenance.
  await page.fill('#maintenance-form input[name=reason]', 'Keypad firmware');
  await page.click('#maintenance-form button[type=submit]');
  await page.waitForSelector('#overall.status-maintenance');
  assert.match(
    (await page.locator('#overall').textContent()) ?? '',
    /^maintenance Maintenance until .* \(Keypad firmware\): /,
  );
  const underway = (await windows())[1]!;
  assert.equal(underway.ends_at.getTime() - underway.starts_at.getTime() <= 30 * 60_000, true);
  const underwayRow = page.locator(`#maintenance-windows tr[data-window-id="${underway.id}"]`);
  assert.equal(await underwayRow.locator('td.state').textContent(), 'underway');
  assert.equal(
    await page.locator('#overall').evaluate((p) => (globalThis as any).getComputedStyle(p).backgroundColor),
    'rgb(230, 239, 251)',
    'maintenance is blue',
  );

  // Ending it: kept at the confirmation, then ended.
  await underwayRow.getByRole('button', { name: 'End now' }).click();
  await page.waitForSelector('#confirm[open]');
  await page.click('#confirm-no');
  await page.waitForSelector('#status:has-text("was kept.")');
  assert.equal((await windows())[1]!.cancelled_at, null);
  await underwayRow.getByRole('button', { name: 'End now' }).click();
  await page.click('#confirm-yes');
  await page.waitForSelector('#overall.status-error');
  assert.notEqual((await windows())[1]!.cancelled_at, null);
  assert.deepEqual(
    await page.locator('#maintenance-windows tr').evaluateAll((rows) => rows.map((r) => Number(r.dataset.windowId))),
    [ahead!.id],
  );
  assert.deepEqual(problems, []);
  await page.close();
});

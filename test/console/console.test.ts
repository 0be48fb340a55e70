// The support console in a real browser (Debian's chromium through playwright-core): support
// signs in with an operator application, sees the notification of a Pending charity auction,
// enrols the facility, and cancels an incomplete auction — the page only ever uses the admin API.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { BrowserContext } from 'playwright-core';
import * as admin from '../../src/tenancy/index.ts';
import { signIn, startConsoleBrowser, watchProblems, type ConsoleBrowser } from '../helpers/browser.ts';
import type { TestApp } from '../helpers/harness.ts';
import { bearer } from '../helpers/tenants.ts';
import { byUnit, createList, envelopeOf, readAuction, record, setupPartner } from '../auctions/helpers.ts';

let t: TestApp;
let browser: BrowserContext;
let base: string;
let session: ConsoleBrowser;

before(async () => {
  session = await startConsoleBrowser();
  ({ t, browser, base } = session);
});
after(() => session?.close());

it('serves the page with a strict Content Security Policy', async () => {
  const response = await t.app.inject({ method: 'GET', url: '/console' });
  assert.equal(response.statusCode, 200);
  assert.match(String(response.headers['content-type']), /^text\/html/);
  assert.match(String(response.headers['content-security-policy']), /default-src 'none'; script-src 'self'/);
  assert.equal(response.headers['x-frame-options'], 'DENY');
  assert.doesNotMatch(response.body, /<script>/, 'no inline script');
  assert.equal((await t.app.inject({ method: 'GET', url: '/console/app.js' })).statusCode, 200);
});

it('support resolves a Pending charity auction and cancels an incomplete one in the browser', async () => {
  const p = await setupPartner(t);
  const created = byUnit(
    envelopeOf(
      await createList(t, p, [
        record('C-1', { auctionType: 'Charity', description: 'Books <img src=x onerror=alert(1)>' }),
        record('C-2', { imageUrls: [] }),
      ]),
    ).data.results,
  );
  const operator = await admin.createApplication(t.services.database.db, { name: 'Support desk', operator: true });
  const page = await browser.newPage();
  const problems = watchProblems(page);

  // A partner's credentials are refused.
  await signIn(page, base, p.clientId, 'not-the-secret');
  await page.waitForSelector('#status:has-text("Sign-in failed")');

  await signIn(page, base, operator.clientId, operator.clientSecret);
  const charity = page.locator(`article[data-auction-id="${created.get('C-1').auctionId}"]`);
  await charity.waitFor();
  assert.match(
    (await charity.locator('.message').textContent()) ?? '',
    /unit C-1 .*not enrolled in the charity programme/,
  );
  assert.equal(await charity.locator('.reason').textContent(), 'CHARITY_NOT_ENROLLED');

  // The record's text is shown as text, never as markup.
  await charity.getByRole('button', { name: 'View auction' }).click();
  await page.waitForSelector('#detail:has-text("Books <img src=x onerror=alert(1)>")');
  assert.equal(await page.locator('#detail img').count(), 0);

  await charity.getByRole('button', { name: 'Enrol facility in charity programme' }).click();
  await page.waitForSelector('#status:has-text("Enrol the facility: done.")');
  await charity.waitFor({ state: 'detached' });
  assert.equal((await readAuction(t, p, created.get('C-1').auctionId)).status, 'Active');

  const incomplete = page.locator(`article[data-auction-id="${created.get('C-2').auctionId}"]`);
  await incomplete.getByRole('button', { name: 'Cancel auction' }).click();
  await incomplete.waitFor({ state: 'detached' });
  const cancelled = await readAuction(t, p, created.get('C-2').auctionId);
  assert.equal(cancelled.status, 'Cancelled');
  assert.match(cancelled.history.at(-1).actor, new RegExp(`^operator:${operator.clientId}$`));

  // Both notifications now read as resolved.
  await page.click('button[data-view=resolved]');
  await page.waitForSelector(
    `article[data-auction-id="${created.get('C-1').auctionId}"] .delivery:has-text("ACTIVATED")`,
  );
  const notifications = (
    await t.app.inject({
      method: 'GET',
      url: `/admin/notifications?facilityId=${p.facilityId}`,
      headers: bearer(await operatorTokenFor(operator)),
    })
  ).json();
  assert.equal(notifications.notifications.length, 0, 'notifications are still open');
  assert.deepEqual(problems, []);
  await page.close();
});

async function operatorTokenFor(operator: { clientId: string; clientSecret: string }): Promise<string> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/auth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: operator.clientId,
      client_secret: operator.clientSecret,
    }).toString(),
  });
  return response.json().access_token;
}

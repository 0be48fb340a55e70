// The support console in a real browser (Debian's chromium through playwright-core): support
// signs in with an operator application, sees grouped notifications with their count (twenty
// failed images; the Pending auctions of one facility), enrols the facility, and cancels an
// incomplete auction — the page only ever uses the admin API.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { consoleFixture, signIn } from '../helpers/browser.ts';
import { tokenFrom } from '../helpers/http.ts';
import { bearer } from '../helpers/tenants.ts';
import { byUnit, createList, envelopeOf, readAuction, record, setupPartner } from '../auctions/helpers.ts';

const session = consoleFixture();

it('serves the page with a strict Content Security Policy', async () => {
  const response = await session.t.app.inject({ method: 'GET', url: '/console' });
  assert.equal(response.statusCode, 200);
  assert.match(String(response.headers['content-type']), /^text\/html/);
  assert.match(String(response.headers['content-security-policy']), /default-src 'none'; script-src 'self'/);
  assert.equal(response.headers['x-frame-options'], 'DENY');
  assert.doesNotMatch(response.body, /<script>/, 'no inline script');
  assert.equal((await session.t.app.inject({ method: 'GET', url: '/console/app.js' })).statusCode, 200);
});

it('support sees grouped notifications with their count, resolves a Pending charity auction and cancels an incomplete one in the browser', async () => {
  const p = await setupPartner(session.t);
  const created = byUnit(
    envelopeOf(
      await createList(session.t, p, [
        record('C-1', { auctionType: 'Charity', description: 'Books <img src=x onerror=alert(1)>' }),
        record('C-2', { imageUrls: [] }),
      ]),
    ).data.results,
  );
  // Twenty images of the other facility that could not be had: one notification counts them.
  await session.t.services.database.db.transaction().execute((trx) =>
    session.t.services.support.raise(
      trx,
      new Date(),
      Array.from({ length: 20 }, (_, i) => ({
        kind: 'IMAGE_FETCH_FAILED' as const,
        reason: 'HTTP_STATUS',
        message: `Image 1 of the auction of unit I-${i + 1} (facility ${p.otherGuid}) could not be retrieved after 5 attempts: The server answered 404.`,
        facilityId: p.otherFacilityId,
        auctionId: null,
        detail: { guid: p.otherGuid, unitId: `I-${i + 1}`, position: 0 },
      })),
    ),
  );
  const operator = await session.t.services.tenancy.createApplication({
    name: 'Support desk',
    operator: true,
  });
  const { page, problems } = await session.open();

  // A partner's credentials are refused.
  await signIn(page, session.base, p.clientId, 'not-the-secret');
  await page.waitForSelector('#status:has-text("Sign-in failed")');

  await signIn(page, session.base, operator.clientId, operator.clientSecret);
  const images = page.locator(`article[data-facility-id="${p.otherFacilityId}"]`);
  await images.waitFor();
  assert.equal(await images.locator('.count').textContent(), '×20');
  assert.match(
    (await images.locator('.message').textContent()) ?? '',
    new RegExp(`^20 images of auctions at facility ${p.otherGuid} could not be retrieved`),
  );
  assert.equal(await images.locator('.items li').count(), 20);

  // The two Pending auctions of the facility are one notification, each auction a line of it.
  const pending = page.locator(`article[data-facility-id="${p.facilityId}"]`);
  await pending.waitFor();
  assert.equal(await pending.locator('.count').textContent(), '×2');
  assert.match((await pending.locator('.message').textContent()) ?? '', /^2 auctions at facility .* were held Pending/);
  const charity = pending.locator(`li[data-auction-id="${created.get('C-1').auctionId}"]`);
  assert.match(
    (await charity.locator('.item-message').textContent()) ?? '',
    /unit C-1 .*not enrolled in the charity programme/,
  );

  // The record's text is shown as text, never as markup.
  await charity.getByRole('button', { name: 'View auction' }).click();
  await page.waitForSelector('#detail[open]:has-text("Books <img src=x onerror=alert(1)>")');
  assert.equal(await page.locator('#detail img').count(), 0);
  await page.click('#detail-close');

  await pending.getByRole('button', { name: 'Enrol facility in charity programme' }).click();
  await page.waitForSelector('#status:has-text("Enrol Facility 1: done.")');
  // Still open for C-2; C-1 reads as activated.
  await page.waitForSelector(`li[data-auction-id="${created.get('C-1').auctionId}"].settled:has-text("ACTIVATED")`);
  assert.equal((await readAuction(session.t, p, created.get('C-1').auctionId)).status, 'Active');

  const incomplete = pending.locator(`li[data-auction-id="${created.get('C-2').auctionId}"]`);
  await incomplete.getByRole('button', { name: 'Cancel auction' }).click();
  await page.click('#confirm[open] #confirm-yes');
  await pending.waitFor({ state: 'detached' });
  const cancelled = await readAuction(session.t, p, created.get('C-2').auctionId);
  assert.equal(cancelled.status, 'Cancelled');
  assert.match(cancelled.history.at(-1).actor, new RegExp(`^operator:${operator.clientId}$`));

  // The notification now reads as resolved, each auction with how it left Pending.
  await page.click('button[data-view=resolved]');
  const resolved = page.locator(`article[data-facility-id="${p.facilityId}"]`);
  await resolved.locator('.delivery:has-text("CANCELLED")').waitFor();
  assert.match(
    (await resolved.locator(`li[data-auction-id="${created.get('C-1').auctionId}"]`).textContent()) ?? '',
    /ACTIVATED$/,
  );
  const notifications = (
    await session.t.app.inject({
      method: 'GET',
      url: `/admin/notifications?facilityId=${p.facilityId}`,
      headers: bearer(
        await tokenFrom(session.base, {
          grant_type: 'client_credentials',
          client_id: operator.clientId,
          client_secret: operator.clientSecret,
        }),
      ),
    })
  ).json();
  assert.equal(notifications.notifications.length, 0, 'notifications are still open');
  assert.deepEqual(problems, []);
  await page.close();
});

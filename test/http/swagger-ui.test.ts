// Swagger UI in a real browser (Debian's chromium): the documented flow works — get a token,
// paste it in "Authorize", "Try it out" on an operation — against the running service, and the
// version selector offers the three documents.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { startConsoleBrowser, watchProblems, type ConsoleBrowser } from '../helpers/browser.ts';
import { provisionAccount } from '../helpers/tenants.ts';

let session: ConsoleBrowser;
before(async () => {
  session = await startConsoleBrowser();
});
after(() => session?.close());

it('authorizes with a bearer token and runs "Try it out" against the service', async () => {
  const { t, browser, base } = session;
  const account = await provisionAccount(t, { name: 'Swagger Storage' });
  const page = await browser.newPage();
  page.setDefaultTimeout(20_000);
  const problems = watchProblems(page);
  await page.goto(`${base}/swagger/`);

  // The document's title, and a selector with the three versions (v3.0 first).
  await page.locator('.info .title', { hasText: 'Gatehouse API v3.0' }).waitFor();
  const versions = await page.locator('.topbar select option').allTextContents();
  assert.deepEqual(versions, ['v3.0', 'v2.0', 'v1.0']);

  // Authorize: paste the token into the bearer scheme's field.
  await page.locator('button.authorize').first().click();
  await page
    .locator('.auth-container input[type=text], .auth-container input[type=password]')
    .first()
    .fill(account.token);
  await page.locator('.auth-btn-wrapper button.authorize').click();
  await page.locator('.auth-btn-wrapper button.btn-done').click();

  // Try it out on GET /auth/whoami: the service answers 200 with the token's account.
  const operation = page.locator('.opblock-get', { has: page.locator('[data-path="/auth/whoami"]') });
  await operation.locator('.opblock-summary').click();
  await operation.locator('button.try-out__btn').click();
  await operation.locator('button.execute').click();
  const status = operation.locator('.live-responses-table .response .response-col_status').first();
  await status.waitFor();
  assert.equal((await status.textContent())?.trim(), '200');
  const body = await operation.locator('.live-responses-table .response-col_description pre').first().textContent();
  assert.equal(JSON.parse(body ?? '{}').accountId, account.accountId, body ?? '');
  // The request went to this service (the document's server is PUBLIC_URL) with the pasted token.
  const curl = await operation.locator('.curl-command').textContent();
  assert.ok(curl?.includes(`${base}/auth/whoami`), curl ?? '');
  assert.ok(curl?.includes(`Bearer ${account.token}`), 'the request carries the token');
  assert.deepEqual(problems, []);
});

// Swagger UI in a real browser (Debian's chromium): the documented flows work against the running
// service — paste a token in "Authorize", or log in there (OAuth 2.0 client credentials, password),
// then "Try it out" on an operation — the version selector offers the three documents, and the page
// is Gatehouse's (title, mark).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
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
  const bearerSection = page.locator('.auth-container', { hasText: 'bearerAuth' });
  await bearerSection.locator('input').first().fill(account.token);
  await bearerSection.locator('button.authorize').click();
  await page.locator('.auth-btn-wrapper button.btn-done').first().click();

  // Try it out on GET /auth/whoami: the service answers 200 with the token's account.
  const { status, body, curl } = await tryWhoami(page);
  assert.equal(status, '200');
  assert.equal(body.accountId, account.accountId, JSON.stringify(body));
  // The request went to this service (the document's server is PUBLIC_URL) with the pasted token.
  assert.ok(curl.includes(`${base}/auth/whoami`), curl);
  assert.ok(curl.includes(`Bearer ${account.token}`), 'the request carries the token');
  assert.deepEqual(problems, []);
});

/** Runs "Try it out" on GET /auth/whoami and answers the status, the body and the curl line. */
async function tryWhoami(page: Page): Promise<{ status: string; body: any; curl: string }> {
  const operation = page.locator('.opblock-get', { has: page.locator('[data-path="/auth/whoami"]') });
  await operation.locator('.opblock-summary').click();
  await operation.locator('button.try-out__btn').click();
  await operation.locator('button.execute').click();
  const status = operation.locator('.live-responses-table .response .response-col_status').first();
  await status.waitFor();
  const body = await operation.locator('.live-responses-table .response-col_description pre').first().textContent();
  return {
    status: (await status.textContent())?.trim() ?? '',
    body: JSON.parse(body ?? '{}'),
    curl: (await operation.locator('.curl-command').textContent()) ?? '',
  };
}

/** Logs in through "Authorize" with one of the oauth2 scheme's flows, ticking no scope. */
async function logIn(page: Page, flow: 'clientCredentials' | 'password', fields: Record<string, string>) {
  await page.locator('button.authorize').first().click();
  const section = page.locator('.auth-container', { hasText: `(OAuth2, ${flow})` });
  for (const [id, value] of Object.entries(fields)) await section.locator(`#${id}`).fill(value);
  await section.locator('button.authorize').click();
  // Logged in: the section offers Logout instead of Authorize.
  await section.locator('button', { hasText: 'Logout' }).waitFor();
  await page.locator('.auth-btn-wrapper button.btn-done').first().click();
}

/**
 * A page of Swagger UI with no authorization kept from an earlier test (persistAuthorization),
 * reached as a newcomer does: at the service's address, which redirects to /swagger.
 */
async function freshReference(base: string): Promise<{ page: Page; problems: string[] }> {
  const page = await session.browser.newPage();
  page.setDefaultTimeout(20_000);
  const problems = watchProblems(page);
  await page.goto(`${base}/`);
  assert.equal(new URL(page.url()).pathname, '/swagger');
  await page.evaluate('localStorage.clear()');
  await page.reload();
  await page.locator('.info .title', { hasText: 'Gatehouse API v3.0' }).waitFor();
  return { page, problems };
}

it('logs in through "Authorize" with the client-credentials flow, and keeps the login over a reload', async () => {
  const { t, base } = session;
  const operator = await t.services.tenancy.createApplication({ name: 'Swagger operator', operator: true });
  const { page, problems } = await freshReference(base);

  // The page is Gatehouse's: its title and its mark in the top bar, not fastify's logo.
  assert.equal(await page.title(), 'Gatehouse API');
  const logo = await page.locator('.topbar-wrapper a.link img').getAttribute('src');
  const [, encoded] = /^data:image\/svg\+xml;base64,(.+)$/.exec(logo ?? '') ?? [];
  const mark = Buffer.from(encoded ?? '', 'base64').toString('utf8');
  assert.match(mark, /aria-label="Gatehouse"/);
  const uiDirectory = path.dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui'));
  assert.notEqual(mark, fs.readFileSync(path.join(uiDirectory, 'static/logo.svg'), 'utf8'), "fastify's logo");
  const icon = await page.locator('link[rel=icon]').getAttribute('href');
  assert.match(icon ?? '', /gatehouse\.svg$/);

  await logIn(page, 'clientCredentials', {
    client_id_clientCredentials: operator.clientId,
    client_secret_clientCredentials: operator.clientSecret,
  });
  const answer = await tryWhoami(page);
  assert.equal(answer.status, '200', JSON.stringify(answer.body));
  assert.equal(answer.body.kind, 'operator');
  assert.equal(answer.body.clientId, operator.clientId);
  assert.match(answer.curl, /Authorization: Bearer ey/);

  // persistAuthorization: on the page loaded again the operation is still authorized. (Without the
  // operation's deep link, which would open it already.)
  await page.goto(`${base}/swagger/`);
  await page.locator('.info .title', { hasText: 'Gatehouse API v3.0' }).waitFor();
  const again = await tryWhoami(page);
  assert.equal(again.status, '200', JSON.stringify(again.body));
  assert.equal(again.body.clientId, operator.clientId);
  assert.deepEqual(problems, []);
});

it('logs in through "Authorize" with the password flow: a PMS with an account key', async () => {
  const { t, base } = session;
  const account = await provisionAccount(t, { name: 'Password Storage' });
  const { page, problems } = await freshReference(base);
  await logIn(page, 'password', {
    oauth_username: account.key.apiKey,
    oauth_password: account.key.apiSecret,
    client_id_password: account.pms.clientId,
    client_secret_password: account.pms.clientSecret,
  });
  const answer = await tryWhoami(page);
  assert.equal(answer.status, '200', JSON.stringify(answer.body));
  assert.equal(answer.body.kind, 'account');
  assert.equal(answer.body.accountId, account.accountId);
  assert.deepEqual(problems, []);
});

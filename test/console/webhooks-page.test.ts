// The operator's webhook view of the support console in a real browser: every subscription with its
// owner, URL, topics and health — disabled after failing in red, failing in amber, healthy in green.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { consoleFixture } from '../helpers/browser.ts';
import { inject } from '../helpers/http.ts';
import { provisionAccount } from '../helpers/tenants.ts';

const session = consoleFixture();

it('lists every webhook subscription with its health in colour', async () => {
  const account = await provisionAccount(session.t, { name: 'Hooked Storage' });
  const subscribe = async (url: string) => {
    const answer = await inject(session.t.app, 'POST', '/webhooks/subscriptions', {
      token: account.token,
      body: { url, topics: ['facility.status'] },
    });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    return answer.body.id as number;
  };
  const healthy = await subscribe('https://hooks.example.com/ok');
  const failing = await subscribe('https://hooks.example.com/failing');
  const disabled = await subscribe('https://hooks.example.com/<b>gone</b>');
  const pool = session.t.services.database.pool;
  await pool.query('update webhook_subscriptions set last_success_at = now() where id = $1', [healthy]);
  await pool.query(
    "update webhook_subscriptions set failing_since = now() - interval '2 hours', last_error = 'HTTP 500' where id = $1",
    [failing],
  );
  await pool.query(
    `update webhook_subscriptions set status = 'disabled', disabled_reason = 'failing', failing_since = now() - interval '3 days',
            last_error = 'TIMEOUT: no answer' where id = $1`,
    [disabled],
  );
  const { page, problems } = await session.signedIn('Hook desk');
  await page.click('button[data-view=webhooks]');
  const row = (id: number) => page.locator(`#subscription-list tr[data-subscription-id="${id}"]`);
  await row(disabled).waitFor();

  const health = async (id: number) => {
    const cell = row(id).locator('td.status');
    return { text: (await cell.textContent()) ?? '', className: (await cell.getAttribute('class')) ?? '' };
  };
  const ok = await health(healthy);
  assert.match(ok.text, /^ok Last delivered /);
  assert.match(ok.className, /status-ok/);
  const amber = await health(failing);
  assert.match(amber.text, /^warning Failing since .*: HTTP 500$/);
  assert.match(amber.className, /status-warning/);
  const red = await health(disabled);
  assert.match(red.text, /^error Disabled after failing since .*: TIMEOUT: no answer$/);
  assert.match(red.className, /status-error/);
  // Owner, URL as text (never as markup), topics.
  assert.match((await row(disabled).locator('th').textContent()) ?? '', new RegExp(`account ${account.accountId}`));
  assert.equal(await row(disabled).locator('td.url').textContent(), 'https://hooks.example.com/<b>gone</b>');
  assert.equal(await row(disabled).locator('td.url b').count(), 0);
  assert.equal(await row(healthy).locator('td').nth(1).textContent(), 'facility.status');
  assert.deepEqual(problems, []);
});

// An allow-list per purpose (issue 23, item 9a): an internal image host allow-listed for image
// fetches is not thereby open to every tenant's webhooks, and a webhook receiver allow-listed for
// deliveries is not an image source. (OUTBOUND_ALLOW_HOSTS alone serves both: the other push tests.)
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createList, record, setupPartner } from '../auctions/helpers.ts';
import { event, postEvents } from '../events/helpers.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { inject } from '../helpers/http.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { gatewayToken, provisionAccount } from '../helpers/tenants.ts';
import { type ImageHost, startImageHost } from '../net/image-host.ts';

let t: TestApp;
let host: ImageHost;
let hook: Receiver;

before(async () => {
  host = await startImageHost();
  hook = await startReceiver();
  t = await startTestApp({
    runJobs: true,
    env: {
      // The shared list would open both to both; the specific ones govern once set.
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      IMAGE_FETCH_ALLOW_HOSTS: host.hostPort,
      WEBHOOK_ALLOW_HOSTS: hook.hostPort,
      WEBHOOK_SWEEP_MS: '100',
    },
  });
});
after(async () => {
  await t.close();
  await hook.close();
  await host.close();
});

it('refuses a webhook to a host allow-listed for images only, and delivers to one allow-listed for webhooks', async () => {
  const account = await provisionAccount(t, { facilities: 1 });
  const subscribe = (url: string) =>
    inject(t.app, 'POST', '/webhooks/subscriptions', {
      token: account.token,
      body: { url, topics: ['gateway.events'] },
    });

  const refused = await subscribe(`${host.url}/hook`);
  assert.equal(refused.status, 400, JSON.stringify(refused.body));
  assert.match(JSON.stringify(refused.body), /"url"/);
  assert.match(JSON.stringify(refused.body), /non-public address/);
  // … and says what would allow it: here, the webhook list.
  assert.match(JSON.stringify(refused.body), /WEBHOOK_ALLOW_HOSTS/);

  const accepted = await subscribe(hook.url);
  assert.equal(accepted.status, 201, JSON.stringify(accepted.body));
  // Nor can a subscription be moved to the image host afterwards.
  const moved = await inject(t.app, 'PATCH', `/webhooks/subscriptions/${accepted.body.id}`, {
    token: account.token,
    body: { url: `${host.url}/hook` },
  });
  assert.equal(moved.status, 400, JSON.stringify(moved.body));

  const gateway = (await gatewayToken(t, account.facilities[0]!.id)).token;
  assert.equal((await postEvents(t, gateway, [event()])).status, 200);
  const end = Date.now() + 10_000;
  while (hook.received.length === 0 && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(hook.received.length, 1, 'the webhook-allowed receiver got the delivery');
  assert.equal(host.hits.size, 0, 'the image host was never called');
});

it('refuses an image URL on a host allow-listed for webhooks only, and accepts one on the image host', async () => {
  const partner = await setupPartner(t);
  const refused = await createList(t, partner, [
    record('W-1', { imageUrls: [`${hook.url.replace('/hook', '')}/a.jpg`] }),
  ]);
  assert.notEqual(refused.statusCode, 200);
  assert.match(refused.body, /auctionableUnitInfo\[0\]\.imageUrls\[0\]/);
  assert.match(refused.body, /ADDRESS_NOT_ALLOWED/);
  const accepted = await createList(t, partner, [record('W-1', { imageUrls: [`${host.url}/photo.jpg`] })]);
  assert.equal(accepted.statusCode, 200, accepted.body);
});

// Webhook subscriptions and their lanes through the real app, with receivers on loopback: signed
// deliveries verified with the Standard Webhooks library, ordered batches of events, retries until
// a failing receiver recovers, lanes that do not wait for each other, hostile receivers, and every
// bad input of issue 14.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { inject } from '../helpers/http.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import {
  gatewayToken,
  operatorToken,
  partnerToken,
  provisionAccount,
  type ProvisionedAccount,
} from '../helpers/tenants.ts';
import { event, postEvents } from '../events/helpers.ts';
import { until } from '../helpers/until.ts';

let t: TestApp;
let account: ProvisionedAccount;
let other: ProvisionedAccount;
let gateway: string;
const receivers: Receiver[] = [];

before(async () => {
  t = await startTestApp({
    runJobs: true,
    env: {
      // Loopback receivers are allow-listed by address (any port); `localhost` is not.
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_BASE_MS: '50',
      WEBHOOK_SWEEP_MS: '100',
      WEBHOOK_TIMEOUT_MS: '500',
    },
  });
  account = await provisionAccount(t, { facilities: 2 });
  other = await provisionAccount(t, { facilities: 1 });
  gateway = (await gatewayToken(t, account.facilities[0]!.id)).token;
});
after(async () => {
  for (const r of receivers) await r.close();
  await t.close();
});

async function receiver(...args: Parameters<typeof startReceiver>) {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

const subscribe = (token: string, body: unknown) => inject(t.app, 'POST', '/webhooks/subscriptions', { token, body });

async function subscribed(url: string, body: Record<string, unknown> = {}, token = account.token) {
  const answer = await subscribe(token, { url, topics: ['gateway.events'], ...body });
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  return answer.body as { id: number; secret: string };
}

/** Every event id delivered to the receiver, in the order received, each delivery verified first. */
/**
 * The events the receiver got, in order, each delivery counted once by its webhook-id: a delivery
 * whose answer came too late (a loaded machine) is sent again under the same id with the same body,
 * which a receiver drops (Standard Webhooks). Two deliveries with different ids never repeat an event.
 */
function deliveredEventIds(r: Receiver, secret: string): string[] {
  const seen = new Map<string, string>();
  return r.received
    .filter((d) => d.json.type === 'gateway.events')
    .flatMap((d) => {
      new Webhook(secret).verify(d.body, d.headers as Record<string, string>);
      const id = d.headers['webhook-id'] as string;
      const before = seen.get(id);
      if (before !== undefined) {
        assert.equal(d.body, before, `delivery ${id} sent again with another body`);
        return [];
      }
      seen.set(id, d.body);
      return d.json.data.events.map((e: { id: string }) => e.id);
    });
}

async function storedIds(eventIds: string[]): Promise<string[]> {
  const { rows } = await t.services.database.pool.query(
    'select id from gateway_events where gwc_event_id = any($1) order by occurred_at, seq',
    [eventIds],
  );
  return rows.map((r: { id: string }) => r.id);
}

describe('webhook subscriptions', () => {
  it('delivers ingested events in signed, ordered batches that verify with the Standard Webhooks library', async () => {
    const r = await receiver();
    const sub = await subscribed(r.url);
    assert.match(sub.secret, /^whsec_/);
    const read = await inject(t.app, 'GET', `/webhooks/subscriptions/${sub.id}`, { token: account.token });
    assert.equal(read.status, 200);
    assert.equal(read.body.secret, undefined, 'the secret is shown once');
    assert.equal(read.body.status, 'enabled');

    const batch = Array.from({ length: 150 }, (_, i) => event({}, 150 - i));
    for (let i = 0; i < batch.length; i += 50)
      assert.equal((await postEvents(t, gateway, batch.slice(i, i + 50))).status, 200);
    const expected = await storedIds(batch.map((e) => e.eventId as string));
    await until(() => deliveredEventIds(r, sub.secret).length >= 150 || undefined, 10_000);
    assert.deepEqual(deliveredEventIds(r, sub.secret), expected);
    for (const d of r.received) {
      assert.ok(d.json.data.events.length <= 100, 'at most 100 events per delivery');
      assert.equal(d.headers['webhook-id'], d.json.id);
      assert.equal(d.json.type, 'gateway.events');
      for (const e of d.json.data.events) assert.match(e.cursor, /^[A-Za-z0-9_-]+$/);
    }
    // A stranger's secret does not verify.
    assert.throws(() =>
      new Webhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw').verify(
        r.received[0]!.body,
        r.received[0]!.headers as never,
      ),
    );
    // The delivery log: a delivery is recorded as delivered once the receiver's answer is back,
    // a moment after the receiver has the request.
    const log = await until(async () => {
      const answer = await inject(t.app, 'GET', `/webhooks/subscriptions/${sub.id}/deliveries`, {
        token: account.token,
      });
      const settled = answer.body.deliveries?.every((d: { status: string }) => d.status === 'delivered');
      return settled ? answer : undefined;
    }, 10_000);
    assert.equal(log.status, 200);
    assert.ok(log.body.deliveries.length >= 2);
    assert.ok(log.body.deliveries.every((d: { status: string }) => d.status === 'delivered'));
  });

  it('keeps retrying a receiver that fails, and it gets everything, in order, once it recovers', async () => {
    const r = await receiver({ kind: 'status', status: 500 });
    const sub = await subscribed(r.url);
    const batch = Array.from({ length: 30 }, (_, i) => event({}, 30 - i));
    await postEvents(t, gateway, batch);
    await until(() => r.attempts >= 3 || undefined, 10_000);
    const failing = await inject(t.app, 'GET', `/webhooks/subscriptions/${sub.id}`, { token: account.token });
    assert.ok(failing.body.health.failingSince, 'the health shows the failure');
    assert.equal(failing.body.health.lastError, 'HTTP 500');
    r.behave({ kind: 'ok' });
    const expected = await storedIds(batch.map((e) => e.eventId as string));
    await until(() => deliveredEventIds(r, sub.secret).length >= 30 || undefined, 10_000);
    assert.deepEqual(deliveredEventIds(r, sub.secret), expected);
    await until(async () => {
      const healthy = await inject(t.app, 'GET', `/webhooks/subscriptions/${sub.id}`, { token: account.token });
      return healthy.body.health.failingSince === null || undefined;
    });
  });

  it('one receiver that never answers does not hold up another', async () => {
    const dead = await receiver({ kind: 'hang' });
    const live = await receiver();
    const deadSub = await subscribed(dead.url);
    const liveSub = await subscribed(live.url);
    const batch = [event(), event()];
    await postEvents(t, gateway, batch);
    await until(() => deliveredEventIds(live, liveSub.secret).length >= 2 || undefined, 5_000);
    await until(async () => {
      const s = await inject(t.app, 'GET', `/webhooks/subscriptions/${deadSub.id}`, { token: account.token });
      return s.body.health.lastError?.startsWith('TIMEOUT') || undefined;
    });
    await inject(t.app, 'DELETE', `/webhooks/subscriptions/${deadSub.id}`, { token: account.token });
  });

  it('counts a 200 after the time limit as a failure, an endless body as delivered, and does not follow a redirect', async () => {
    const late = await receiver({ kind: 'late', ms: 2_000 });
    const endless = await receiver({ kind: 'endless' });
    const target = await receiver();
    const redirect = await receiver({ kind: 'redirect', location: `${target.url.replace('127.0.0.1', 'localhost')}` });
    const subs = {
      late: await subscribed(late.url),
      endless: await subscribed(endless.url),
      redirect: await subscribed(redirect.url),
    };
    await postEvents(t, gateway, [event()]);
    const health = async (id: number) =>
      (await inject(t.app, 'GET', `/webhooks/subscriptions/${id}`, { token: account.token })).body.health;
    await until(async () => (await health(subs.late.id)).lastError?.startsWith('TIMEOUT') || undefined);
    await until(async () => (await health(subs.endless.id)).lastSuccessAt || undefined);
    await until(async () => (await health(subs.redirect.id)).lastError === 'HTTP 302' || undefined);
    assert.equal(target.attempts, 0, 'the redirect was not followed');
    for (const s of Object.values(subs))
      await inject(t.app, 'DELETE', `/webhooks/subscriptions/${s.id}`, { token: account.token });
  });

  it('checks the address again at delivery: a host that now resolves to loopback gets nothing', async () => {
    const r = await receiver();
    const sub = await subscribed(r.url);
    // As if its DNS changed after creation: the name resolves to 127.0.0.1, which only the address is allow-listed as.
    await t.services.database.pool.query('update webhook_subscriptions set url = $1 where id = $2', [
      r.url.replace('127.0.0.1', 'localhost'),
      sub.id,
    ]);
    await postEvents(t, gateway, [event()]);
    await until(async () => {
      const s = await inject(t.app, 'GET', `/webhooks/subscriptions/${sub.id}`, { token: account.token });
      return s.body.health.lastError?.startsWith('ADDRESS_NOT_ALLOWED') || undefined;
    });
    assert.equal(r.attempts, 0);
    await inject(t.app, 'DELETE', `/webhooks/subscriptions/${sub.id}`, { token: account.token });
  });

  it('signs with both secrets for a day after a rotation', async () => {
    const r = await receiver();
    const sub = await subscribed(r.url);
    const rotated = await inject(t.app, 'POST', `/webhooks/subscriptions/${sub.id}/rotate-secret`, {
      token: account.token,
    });
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.body.secret, sub.secret);
    const ping = await inject(t.app, 'POST', `/webhooks/subscriptions/${sub.id}/test`, { token: account.token });
    assert.equal(ping.status, 200);
    assert.equal(ping.body.delivered, true);
    const d = r.received.find((x) => x.json.type === 'ping')!;
    assert.equal(String(d.headers['webhook-signature']).split(' ').length, 2);
    new Webhook(sub.secret).verify(d.body, d.headers as never);
    new Webhook(rotated.body.secret).verify(d.body, d.headers as never);
    await inject(t.app, 'DELETE', `/webhooks/subscriptions/${sub.id}`, { token: account.token });
  });

  it('disables a subscription failing for too long and tells support', async () => {
    const r = await receiver({ kind: 'status', status: 503 });
    const sub = await subscribed(r.url);
    await t.services.database.pool.query(
      "update webhook_subscriptions set failing_since = now() - interval '4 days' where id = $1",
      [sub.id],
    );
    await postEvents(t, gateway, [event()]);
    await until(async () => {
      const s = await inject(t.app, 'GET', `/webhooks/subscriptions/${sub.id}`, { token: account.token });
      return s.body.status === 'disabled' || undefined;
    });
    const s = (await inject(t.app, 'GET', `/webhooks/subscriptions/${sub.id}`, { token: account.token })).body;
    assert.equal(s.health.disabledReason, 'failing');
    const operator = await operatorToken(t);
    const notes = await inject(t.app, 'GET', '/admin/notifications?kind=WEBHOOK_DISABLED', { token: operator });
    assert.ok(
      notes.body.notifications.some((n: { detail: { subscriptionId: number } }) => n.detail.subscriptionId === sub.id),
    );
    const admin = await inject(t.app, 'GET', '/admin/webhooks/subscriptions?failing=true', { token: operator });
    assert.equal(admin.status, 200);
    const listed = admin.body.find((x: { id: number }) => x.id === sub.id);
    assert.equal(listed.status, 'disabled');
    assert.deepEqual(listed.owner, { accountId: account.accountId });
    // Enabled again, it resumes; the receiver now answers.
    r.behave({ kind: 'ok' });
    const enabled = await inject(t.app, 'PATCH', `/webhooks/subscriptions/${sub.id}`, {
      token: account.token,
      body: { status: 'enabled' },
    });
    assert.equal(enabled.body.status, 'enabled');
    const log = await inject(t.app, 'GET', `/webhooks/subscriptions/${sub.id}/deliveries`, { token: account.token });
    const failed = log.body.deliveries.find((d: { status: string }) => d.status === 'failed');
    assert.ok(failed, 'the head it gave up on is marked failed');
    const retried = await inject(t.app, 'POST', `/webhooks/subscriptions/${sub.id}/deliveries/${failed.id}/retry`, {
      token: account.token,
    });
    assert.equal(retried.status, 202);
    await until(() => r.received.some((x) => x.json.id === failed.id) || undefined);
  });
});

describe('webhook subscriptions: bad input and attacks', () => {
  it('refuses loopback, private, metadata, file: and ftp: URLs, naming the field', async () => {
    for (const url of [
      'http://localhost:9/hook',
      'http://10.0.0.1/hook',
      'http://192.168.1.20/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/hook',
      'file:///etc/passwd',
      'ftp://example.com/x',
      'http://user:pw@example.com/',
      'not a url',
    ]) {
      const answer = await subscribe(account.token, { url, topics: ['gateway.events'] });
      assert.equal(answer.status, 400, url);
      assert.equal(answer.body.errors[0].path, 'url', url);
    }
  });

  it('names what allows a receiver on a non-public address, at creation and at a change', async () => {
    // The remedy is the operator's allow-list (OUTBOUND_ALLOW_HOSTS, or the webhook-specific list)
    // or a public receiver: an integrator refused for a local receiver learns what to ask for.
    const namesRemedy = (answer: Awaited<ReturnType<typeof subscribe>>, url: string) => {
      assert.equal(answer.status, 400, url);
      const fault = answer.body.errors.find((e: { path: string }) => e.path === 'url');
      assert.ok(fault, `${url}: ${JSON.stringify(answer.body)}`);
      assert.match(fault.message, /OUTBOUND_ALLOW_HOSTS/, url);
      assert.match(fault.message, /WEBHOOK_ALLOW_HOSTS/, url);
      assert.match(fault.message, /public receiver/, url);
    };
    // An address written in the URL, and a name that resolves to loopback.
    const local = ['http://10.0.0.1/hook', 'http://127.0.0.2:8080/hook', 'http://localhost:9/hook'];
    for (const url of local) namesRemedy(await subscribe(account.token, { url, topics: ['gateway.events'] }), url);
    const sub = await subscribed((await receiver()).url);
    for (const url of local)
      namesRemedy(
        await inject(t.app, 'PATCH', `/webhooks/subscriptions/${sub.id}`, { token: account.token, body: { url } }),
        url,
      );
  });

  it('names every bad field at once', async () => {
    const answer = await subscribe(account.token, {
      url: 'http://10.1.1.1/',
      topics: ['gateway.events', 'command.status', 'command.status'],
      eventTypes: [18, 2],
      facilityIds: [other.facilities[0]!.id],
    });
    assert.equal(answer.status, 400);
    const paths = answer.body.errors.map((e: { path: string }) => e.path).sort();
    assert.deepEqual(paths, ['eventTypes[1]', 'facilityIds[0]', 'topics', 'url']);
  });

  it('refuses a partner gateway.events (403) and an account auction.status (403)', async () => {
    const partner = await partnerToken(t, 'auction-house', [account.facilities[0]!.guid!]);
    const r = await receiver();
    assert.equal((await subscribe(partner.token, { url: r.url, topics: ['gateway.events'] })).status, 403);
    assert.equal((await subscribe(account.token, { url: r.url, topics: ['auction.status'] })).status, 403);
    assert.equal((await subscribe(partner.token, { url: r.url, topics: ['auction.status'] })).status, 201);
  });

  it('hides another account’s subscription (404) on every route', async () => {
    const r = await receiver();
    const sub = await subscribed(r.url);
    const base = `/webhooks/subscriptions/${sub.id}`;
    for (const [method, url, body] of [
      ['GET', base, undefined],
      ['PATCH', base, { description: 'x' }],
      ['DELETE', base, undefined],
      ['POST', `${base}/rotate-secret`, undefined],
      ['POST', `${base}/test`, undefined],
      ['GET', `${base}/deliveries`, undefined],
      ['POST', `${base}/replay`, { since: new Date().toISOString() }],
      ['POST', `${base}/deliveries/00000000-0000-4000-8000-000000000000/retry`, undefined],
    ] as const) {
      const answer = await inject(t.app, method, url, { token: other.token, body });
      assert.equal(answer.status, 404, `${method} ${url}`);
    }
    assert.equal((await inject(t.app, 'GET', base, { token: account.token })).status, 200);
  });

  it('refuses a replay from beyond retention or the future (400), and replays from within it', async () => {
    const r = await receiver();
    const sub = await subscribed(r.url);
    const replay = (since: string) =>
      inject(t.app, 'POST', `/webhooks/subscriptions/${sub.id}/replay`, { token: account.token, body: { since } });
    assert.equal((await replay(new Date(Date.now() - 181 * 86_400_000).toISOString())).status, 400);
    assert.equal((await replay(new Date(Date.now() + 3_600_000).toISOString())).status, 400);
    assert.equal((await replay('yesterday')).status, 400);
    const old = event({}, 60);
    await postEvents(t, gateway, [old]);
    const [oldId] = await storedIds([old.eventId as string]);
    await until(() => deliveredEventIds(r, sub.secret).includes(oldId!) || undefined);
    const before = deliveredEventIds(r, sub.secret).length;
    assert.equal((await replay(new Date(Date.now() - 61 * 60_000).toISOString())).status, 202);
    await until(() => deliveredEventIds(r, sub.secret).length > before || undefined);
    assert.equal(deliveredEventIds(r, sub.secret).filter((id) => id === oldId).length, 2, 'sent again');
  });

  it('limits an account to 100 subscriptions (409), and says so', async () => {
    const crowded = await provisionAccount(t);
    const r = await receiver();
    for (let i = 0; i < 100; i++)
      assert.equal((await subscribe(crowded.token, { url: r.url, topics: ['facility.status'] })).status, 201);
    const refused = await subscribe(crowded.token, { url: r.url, topics: ['facility.status'] });
    assert.equal(refused.status, 409);
    assert.match(refused.body.detail, /at most 100/);
  });

  it('needs the webhooks scope (403)', async () => {
    const narrow = await provisionAccount(t, { scopes: ['accessevent:read'] });
    assert.equal((await inject(t.app, 'GET', '/webhooks/subscriptions', { token: narrow.token })).status, 403);
  });
});

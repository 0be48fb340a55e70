// Push end to end, with the real server process: a PMS subscribes, receives signed deliveries and
// verifies them with the Standard Webhooks library; a receiver that fails then recovers gets
// everything; a SIGKILL of the server with deliveries pending loses none after the restart; and the
// live stream, cut by the kill, resumes exactly after the last event it gave (Last-Event-ID).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { clientFor, eventually, ok, provisionThroughAdmin, tokenFor } from '../helpers/e2e.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { openStream } from '../events/sse-client.ts';
import { realServer } from '../helpers/server.ts';

const receivers: Receiver[] = [];
const served = realServer(
  { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_SWEEP_MS: '250' },
  {
    async cleanup() {
      for (const r of receivers) await r.close();
    },
  },
);

/** Every event id the receiver got, each delivery verified with the secret first; in arrival order. */
function eventIds(r: Receiver, secret: string): string[] {
  return r.received.flatMap((d) => {
    new Webhook(secret).verify(d.body, d.headers as Record<string, string>);
    return d.json.type === 'gateway.events' ? d.json.data.events.map((e: { id: string }) => e.id) : [];
  });
}

it('delivers every acknowledged event, signed, across a failing receiver and a SIGKILL; the stream resumes exactly', async () => {
  const { account, gateway, pms } = await provisionThroughAdmin(served.url, served.database, 'Push E2E');
  const controller = await tokenFor(served.url, {
    grant_type: 'client_credentials',
    client_id: gateway.clientId,
    client_secret: gateway.clientSecret,
  });
  const steady = await startReceiver();
  const flaky = await startReceiver();
  receivers.push(steady, flaky);
  flaky.behave((n) => (n <= 3 ? { kind: 'status', status: 500 } : { kind: 'ok' }));
  // The server is restarted on another port below: a client for the server of the moment.
  const pmsClient = () => clientFor(served.url, pms);
  const subscribe = (url: string) =>
    ok(pmsClient().POST('/webhooks/subscriptions', { body: { url, topics: ['gateway.events'] } }), 201);
  const steadySub = await subscribe(steady.url);
  const flakySub = await subscribe(flaky.url);
  const streamUrl = `${served.url}/gatewayevents/accounts/${account.id}/stream`;
  const stream = await openStream(streamUrl, pms);
  assert.equal(stream.status, 200);

  let n = 0;
  const post = async (count: number) => {
    const events = Array.from({ length: count }, () => ({
      eventId: `push-e2e-${++n}`,
      eventType: 18,
      occurredAt: new Date(Date.now() - 60_000 + n).toISOString(),
    }));
    const answer = await ok(clientFor(served.url, controller).POST('/gateway/v1/events', { body: { events } }), 200);
    assert.equal(answer.accepted, count);
  };
  const storedIds = async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      // (Typed here: the loop on the cursor is more than the inference follows.)
      const page: { items: { id: string }[]; metadata: { nextCursor: string | null } } = await ok(
        pmsClient().GET('/gatewayevents/accounts/{accountId}', {
          params: {
            path: { accountId: account.id },
            query: { sort: 'asc', pageSize: 1000, ...(cursor ? { cursor } : {}) },
          },
        }),
      );
      ids.push(...page.items.map((i) => i.id));
      cursor = page.metadata.nextCursor;
    } while (cursor);
    return ids;
  };

  // Signed deliveries; the flaky receiver fails three times, then gets everything, in order.
  for (let b = 0; b < 5; b++) await post(40);
  let expected = await storedIds();
  assert.equal(expected.length, 200);
  await eventually('the steady receiver has every event', async () => eventIds(steady, steadySub.secret).length >= 200);
  await eventually('the flaky receiver has every event', async () => eventIds(flaky, flakySub.secret).length >= 200);
  assert.deepEqual(eventIds(steady, steadySub.secret), expected);
  assert.deepEqual(eventIds(flaky, flakySub.secret), expected);
  assert.ok(flaky.attempts > flaky.received.length, 'the flaky receiver did fail first');

  await stream.waitForEvents(200);

  // Both receivers go down; the controller's events are acknowledged; the server is killed.
  steady.behave({ kind: 'status', status: 503 });
  flaky.behave({ kind: 'status', status: 503 });
  for (let b = 0; b < 5; b++) await post(60);
  // The stream may have seen some of the new events before the kill: it resumes after the last it gave.
  assert.equal(await served.server.kill('SIGKILL'), 'SIGKILL');
  await stream.ended;
  const before = stream.events();
  steady.behave({ kind: 'ok' });
  flaky.behave({ kind: 'ok' });
  await served.restart();

  expected = await storedIds();
  assert.equal(expected.length, 500);
  const resumed = await openStream(`${served.url}/gatewayevents/accounts/${account.id}/stream`, pms, {
    'last-event-id': before.at(-1)!.id,
  });
  assert.equal(resumed.status, 200);
  const rest = await resumed.waitForEvents(500 - before.length, 30_000);
  resumed.close();
  const streamed = [...before, ...rest].map((e) => e.event.id);
  assert.equal(streamed.length, 500, 'nothing repeated');
  assert.deepEqual([...streamed].sort(), [...expected].sort(), 'nothing missed');
  await eventually('the steady receiver has every event after the restart', async () =>
    new Set(eventIds(steady, steadySub.secret)).size >= 500 ? true : null,
  );
  await eventually('the flaky receiver has every event after the restart', async () =>
    new Set(eventIds(flaky, flakySub.secret)).size >= 500 ? true : null,
  );
  for (const [r, secret] of [
    [steady, steadySub.secret],
    [flaky, flakySub.secret],
  ] as const) {
    const got = eventIds(r, secret);
    assert.deepEqual([...new Set(got)].sort(), [...expected].sort(), 'none lost');
    // At-least-once: a delivery in flight at the kill may come again (same webhook-id); nothing else repeats.
    const ids = r.received.map((d) => d.json.id);
    const repeats = ids.length - new Set(ids).size;
    assert.ok(got.length - new Set(got).size <= 100 * repeats, 'repeats only as whole deliveries sent again');
  }
});

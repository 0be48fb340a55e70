// Fair webhook delivery (issue 23, item 2): one account's hundred receivers that accept and never
// answer hold a few of the instance's lanes, not all of them, so another account's webhooks arrive
// as promptly as ever — long before any of the stalled attempts could have been given up.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { event, postEvents } from '../events/helpers.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { inject } from '../helpers/http.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { gatewayToken, provisionAccount } from '../helpers/tenants.ts';
import { until } from '../helpers/until.ts';

/** The stalled attempts are given up after this; the other account's deliveries must arrive well before. */
const FIRST_BYTE_MS = 8_000;
const PER_OWNER = 4;

let t: TestApp;
let stalling: Receiver;
let answering: Receiver;

before(async () => {
  stalling = await startReceiver({ kind: 'hang' });
  answering = await startReceiver();
  t = await startTestApp({
    runJobs: true,
    env: {
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      WEBHOOK_SWEEP_MS: '100',
      // The whole attempt keeps its default (10 s); a receiver must start answering within 8 s.
      WEBHOOK_FIRST_BYTE_TIMEOUT_MS: String(FIRST_BYTE_MS),
      WEBHOOK_LANES_PER_OWNER: String(PER_OWNER),
    },
  });
});
after(async () => {
  // The stalled requests end at once (their lanes record a failure), so that shutdown need not wait for them.
  await stalling.close();
  await answering.close();
  await t.close();
});

it('delivers an account’s webhooks promptly while another account’s 100 receivers stall', async () => {
  const a = await provisionAccount(t, { facilities: 1 });
  const b = await provisionAccount(t, { facilities: 1 });
  const subscribe = async (token: string, url: string) => {
    const answer = await inject(t.app, 'POST', '/webhooks/subscriptions', {
      token,
      body: { url, topics: ['gateway.events'] },
    });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
  };
  for (let i = 0; i < 3; i++) await subscribe(a.token, `${answering.url}?s=${i}`);
  for (let i = 0; i < 100; i++) await subscribe(b.token, `${stalling.url}?s=${i}`);

  // B's one event: each of its 100 lanes has a delivery for the receiver that never answers.
  await postEvents(t, (await gatewayToken(t, b.facilities[0]!.id)).token, [event()]);
  await until(() => stalling.attempts >= 1 || undefined, 10_000);

  // A's events, one commit at a time: each reaches all three of A's receivers promptly.
  const aGateway = (await gatewayToken(t, a.facilities[0]!.id)).token;
  const latencies: number[] = [];
  for (let i = 1; i <= 5; i++) {
    const started = Date.now();
    assert.equal((await postEvents(t, aGateway, [event()])).status, 200);
    await until(
      () => answering.received.reduce((n, d) => n + (d.json.data.events?.length ?? 0), 0) >= 3 * i || undefined,
      30_000,
    );
    latencies.push(Date.now() - started);
  }
  const slowest = Math.max(...latencies);
  assert.ok(
    slowest < FIRST_BYTE_MS / 2,
    `A's deliveries took ${latencies.join(', ')} ms: not before B's stalled attempts (${FIRST_BYTE_MS} ms) could end`,
  );
  // B holds at most its share of the lanes: its other lanes wait behind its own stalled ones.
  assert.ok(stalling.attempts <= PER_OWNER, `B's receiver has ${stalling.attempts} requests in flight`);
});

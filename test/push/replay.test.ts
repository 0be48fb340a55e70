// Bounded replays (issue 23, item 5): a replay repeated does not multiply the deliveries (a new one
// replaces what the previous one has not delivered), and one that would take a subscription past
// the pending deliveries it may hold is refused whole, saying why, with nothing queued or removed.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { ok, refused, typedClient } from '../helpers/client.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { provisionAccount } from '../helpers/tenants.ts';

const CAP = 100;
let t: TestApp;
let r: Receiver;

before(async () => {
  // The receiver refuses everything: what a replay queues stays pending, to be counted.
  r = await startReceiver({ kind: 'status', status: 503 });
  t = await startTestApp({
    runJobs: true,
    env: {
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      WEBHOOK_SWEEP_MS: '100',
      WEBHOOK_RETRY_BASE_MS: '60000',
      WEBHOOK_PENDING_PER_SUBSCRIPTION: String(CAP),
    },
  });
});
after(async () => {
  await r.close();
  await t.close();
});

it('replaces the previous replay’s undelivered deliveries, and refuses one past the pending cap whole', async () => {
  const account = await provisionAccount(t, { facilities: 1 });
  const facilityId = account.facilities[0]!.id;
  const pms = typedClient(t, account.token);
  // 101 commands (one per unit made), then expired: 31 of them 30 minutes ago, 70 of them 10 minutes ago.
  for (let i = 1; i <= CAP + 1; i++) {
    const body = { unitNumber: `R-${i}` };
    await ok(pms.POST('/facilities/{facilityId}/units', { params: { path: { facilityId } }, body }), 201);
  }
  const { pool } = t.services.database;
  await pool.query(
    `update commands set expires_at = now() - case when sequence <= 31 then interval '30 min' else interval '10 min' end
      where facility_id = $1`,
    [facilityId],
  );
  const { rows } = await pool.query('select count(*)::int as n from commands where facility_id = $1', [facilityId]);
  assert.equal(rows[0].n, CAP + 1);
  assert.ok((await t.services.commands.recordExpiredCommands()) >= CAP + 1);

  // Subscribed after the facts: only a replay sends them.
  const created = await ok(
    pms.POST('/webhooks/subscriptions', { body: { url: r.url, topics: ['command.status'] } }),
    201,
  );
  const id = created.id;
  const replay = (minutesAgo: number) =>
    pms.POST('/webhooks/subscriptions/{subscriptionId}/replay', {
      params: { path: { subscriptionId: id } },
      body: { since: new Date(Date.now() - minutesAgo * 60_000).toISOString() },
    });
  const pending = async () =>
    (
      await pool.query(
        "select count(*)::int as n from webhook_deliveries where subscription_id = $1 and status = 'pending'",
        [id],
      )
    ).rows[0].n as number;

  const first = await ok(replay(20), 202);
  assert.equal(first.facts, 70);
  assert.equal(first.replaced, 0);
  assert.equal(await pending(), 70);
  // Twenty replays more: still one replay's deliveries pending, not 1,470.
  for (let i = 0; i < 20; i++) {
    const again = await ok(replay(20), 202);
    assert.equal(again.facts, 70);
    assert.equal(again.replaced, 70, 'the previous replay’s undelivered deliveries are replaced');
  }
  assert.equal(await pending(), 70);
  assert.ok(r.attempts >= 1, 'the lane is at work on them');

  // All 101 facts would pass the cap of 100: refused whole, and the previous replay's deliveries stay.
  const tooLarge = await refused(replay(40), 409);
  assert.equal(tooLarge.code, 'REPLAY_TOO_LARGE');
  assert.match(tooLarge.detail, /more than 100 deliveries/);
  assert.match(tooLarge.detail, /at most 100 pending deliveries/);
  assert.equal(await pending(), 70, 'nothing queued, nothing removed');

  // A replay of the 70 again fits: it replaces them.
  await ok(replay(20), 202);
  assert.equal(await pending(), 70);
});

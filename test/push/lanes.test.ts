// Issue 25: lanes that keep pace. A fill is one statement — the position moves only from where the
// fill read it, and the deliveries exist only if it moved; lanes filling together read the horizon
// (and whether their owners have facts past them) once, and the same slice of events once; and with
// several receivers on one account under concurrent ingest, each gets every event exactly once.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { commitHorizon } from '../../src/db/horizon.ts';
import { webhookEnvelope, webhookEnvelopeOf } from '../../src/net/webhook-sender.ts';
import * as repo from '../../src/push/repository.ts';
import { createLaneReads, eventPosition, eventSelection, type PushFacts } from '../../src/push/sources.ts';
import { event, postEvents } from '../events/helpers.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { inject } from '../helpers/http.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { gatewayToken, provisionAccount, type ProvisionedAccount } from '../helpers/tenants.ts';
import { until } from '../helpers/until.ts';

let t: TestApp;
let account: ProvisionedAccount;
const receivers: Receiver[] = [];

before(async () => {
  t = await startTestApp({
    runJobs: true,
    env: { OUTBOUND_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_SWEEP_MS: '200' },
  });
  account = await provisionAccount(t, { facilities: 2 });
});
after(async () => {
  for (const r of receivers) await r.close();
  await t.close();
});

async function subscribe(url: string, topics = ['gateway.events']) {
  const answer = await inject(t.app, 'POST', '/webhooks/subscriptions', {
    token: account.token,
    body: { url, topics },
  });
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  return answer.body as { id: number; secret: string };
}

const facts = (): PushFacts => ({
  commands: t.services.commands.facts,
  facilityStatus: t.services.facilityStatus.facts,
  drift: t.services.drift.facts,
  auctions: t.services.auctions.facts,
  events: t.services.events.facts,
});

const fact = (n: number): repo.NewDelivery => {
  const id = randomUUID();
  return { id, type: 'facility.status', createdAt: new Date(), body: `{"n":${n}}`, slice: null };
};

async function deliveriesOf(subscriptionId: number) {
  const { rows } = await t.services.database.pool.query<{ id: string; status: string }>(
    'select id, status from webhook_deliveries where subscription_id = $1 order by seq',
    [subscriptionId],
  );
  return rows;
}

describe('a fill in one statement', () => {
  it('moves the lane only from where the fill read it, and makes its deliveries only then', async () => {
    const db = t.services.database.db;
    // A lane this test holds (the service's own turns find it busy); its receiver is never called.
    const { id } = await subscribe('http://127.0.0.1:9/never');
    // (The service's own turn, kicked by the subscription's creation, may hold it for a moment.)
    const claimed = await until(() => repo.claimLane(db, id, 120_000));
    assert.equal(claimed.pending, false, 'a new lane holds nothing');
    const s = claimed.subscription;
    const to = { ...eventPositionColumns(s), facts_txid: s.facts_txid + 10 };

    // A replay moves the event position after the fill read it.
    await repo.updateSubscription(db, id, { events_lo: 0, events_after_ms: 5, events_after_seq: 0 });
    const stale = await repo.fillLane(db, s, to, [fact(1), fact(2)]);
    assert.equal(stale.moved, false);
    assert.deepEqual(stale.made, []);
    assert.deepEqual(await deliveriesOf(id), [], 'nothing inserted');
    assert.equal(stale.subscription?.events_after_ms, 5, 'it answers with the lane as it is now');
    assert.equal(stale.subscription?.facts_txid, s.facts_txid, 'the facts position did not move either');

    // From where the lane stands now: moved, and the deliveries made in order.
    const made = [fact(3), fact(4)];
    const fresh = await repo.fillLane(db, stale.subscription!, to, made);
    assert.equal(fresh.moved, true);
    assert.equal(fresh.othersPending, false);
    assert.deepEqual(
      fresh.made.map((d) => d.id),
      made.map((d) => d.id),
    );
    assert.ok(fresh.made[0]!.seq < fresh.made[1]!.seq);
    assert.equal(fresh.subscription?.facts_txid, to.facts_txid);
    assert.deepEqual(
      (await deliveriesOf(id)).map((d) => [d.id, d.status]),
      made.map((d) => [d.id, 'pending']),
    );

    // Deliveries pending that this fill did not make (here: the last fill's, not sent): it says so.
    const next = await repo.fillLane(db, fresh.subscription!, { ...to, facts_txid: to.facts_txid + 1 }, [fact(5)]);
    assert.equal(next.moved, true);
    assert.equal(next.othersPending, true);
    assert.equal(next.made.length, 1);

    // A subscription disabled meanwhile: nothing moves, nothing is made.
    await repo.updateSubscription(db, id, { status: 'disabled', disabled_reason: 'owner' });
    const disabled = await repo.fillLane(db, next.subscription!, { ...to, facts_txid: to.facts_txid + 2 }, [fact(6)]);
    assert.equal(disabled.moved, false);
    assert.equal(disabled.subscription?.status, 'disabled');
    assert.equal((await deliveriesOf(id)).length, 3);

    // Given up with deliveries due that the turn did not send: the release says so (the lane is worked again).
    assert.equal(await repo.releaseLane(db, id, null), true);
  });
});

describe('deliveries accepted, written by the next statement', () => {
  it('a fill writes the deliveries its receivers accepted, as of their answers, and does not count them pending', async () => {
    const db = t.services.database.db;
    const { id } = await subscribe('http://127.0.0.1:9/never');
    const claimed = await until(() => repo.claimLane(db, id, 120_000));
    const s = claimed.subscription;
    const to = (n: number) => ({ ...eventPositionColumns(s), facts_txid: s.facts_txid + n });
    const first = await repo.fillLane(db, s, to(1), [fact(1), fact(2)]);
    const [a, b] = first.made as [repo.DeliveryRow, repo.DeliveryRow];
    const answeredAt = new Date(Date.now() - 1500);

    // The first accepted, written by the next fill: the second is still pending (othersPending).
    const second = await repo.fillLane(
      db,
      first.subscription!,
      to(2),
      [fact(3)],
      [{ id: a.id, responseStatus: 204, at: answeredAt }],
    );
    assert.equal(second.moved, true);
    assert.equal(second.othersPending, true);
    const { rows } = await t.services.database.pool.query<{
      status: string;
      attempts: number;
      response_status: number | null;
      delivered_at: Date | null;
      last_attempt_at: Date | null;
    }>(
      'select status, attempts, response_status, delivered_at, last_attempt_at from webhook_deliveries where id = $1',
      [a.id],
    );
    assert.deepEqual(rows[0], {
      status: 'delivered',
      attempts: 1,
      response_status: 204,
      delivered_at: answeredAt,
      last_attempt_at: answeredAt,
    });

    // Both left accepted in the same statement that finds them: nothing else pending.
    const third = await repo.fillLane(
      db,
      second.subscription!,
      to(3),
      [],
      [
        { id: b.id, responseStatus: 200, at: new Date() },
        { id: second.made[0]!.id, responseStatus: 202, at: new Date() },
      ],
    );
    assert.equal(third.othersPending, false);
    assert.deepEqual(
      (await deliveriesOf(id)).map((d) => d.status),
      ['delivered', 'delivered', 'delivered'],
    );

    // Without a fill (before a wait, a head read, a release): the same write on its own.
    const fourth = await repo.fillLane(db, third.subscription!, to(4), [fact(4)]);
    await repo.recordAccepted(db, [{ id: fourth.made[0]!.id, responseStatus: 200, at: new Date() }]);
    assert.deepEqual((await deliveriesOf(id)).at(-1)?.status, 'delivered');
    await repo.releaseLane(db, id, null);
  });

  it('a lane behind makes one statement per delivery: fill and the last one’s record together', async () => {
    // Only this lane works meanwhile: the earlier tests' lanes, whose receivers never answer, go.
    await t.services.database.pool.query("delete from webhook_subscriptions where url like '%/never'");
    const r = await startReceiver();
    receivers.push(r);
    const { id } = await subscribe(r.url);
    const gateway = (await gatewayToken(t, account.facilities[0]!.id)).token;
    // Held while 300 events commit: the lane then has three full deliveries to make.
    const held = await until(() => repo.claimLane(t.services.database.db, id, 120_000));
    assert.ok(held);
    for (let batch = 0; batch < 3; batch++)
      assert.equal(
        (
          await postEvents(
            t,
            gateway,
            Array.from({ length: 100 }, () => event({}, 1)),
          )
        ).status,
        200,
      );
    // Every statement on the pool the lanes use (Kysely checks a client out for each).
    const statements: string[] = [];
    const patched = new WeakSet<object>();
    const record = (client: pg.PoolClient) => {
      if (patched.has(client)) return;
      patched.add(client);
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      client.query = ((text: unknown, ...rest: unknown[]) => {
        const sqlText = typeof text === 'string' ? text : (text as { text?: string }).text;
        if (sqlText && /webhook_deliveries/.test(sqlText)) statements.push(sqlText);
        return query(text, ...rest);
      }) as typeof client.query;
    };
    const pool = t.services.database.tailPool;
    pool.on('acquire', record);
    try {
      await repo.releaseLane(t.services.database.db, id, new Date());
      t.services.push.deliveries.kick(id);
      await until(() => r.received.filter((x) => x.json.type === 'gateway.events').length >= 3 || undefined, 20_000);
      await until(async () => (await deliveriesOf(id)).every((d) => d.status === 'delivered') || undefined, 20_000);
    } finally {
      pool.off('acquire', record);
    }
    const sent = r.received.filter((x) => x.json.type === 'gateway.events');
    assert.deepEqual(
      sent.map((x) => x.json.data.events.length),
      [100, 100, 100],
    );
    // Three fills, the second and third each writing the delivery before it, and the last delivery
    // written before the lane waits (by a fill that finds nothing new, or on its own): four writes
    // for three deliveries, where a write per attempt made six. A late wake-up (the batches' own,
    // across LISTEN/NOTIFY on PostgreSQL, or the sweep's) can reach the lane after the test's kick on
    // a loaded machine: one more fill that finds nothing new (seen once in CI); never an attempt's write.
    const kinds = statements.map((x) =>
      /^\s*with recorded as/.test(x)
        ? 'fill'
        : /^\s*update webhook_deliveries d\s/.test(x)
          ? 'accepted'
          : /^\s*update webhook_deliveries set/.test(x)
            ? 'attempt'
            : 'read',
    );
    const shown = kinds.join(', ');
    assert.equal(kinds.filter((k) => k === 'attempt').length, 0, shown);
    const writes = kinds.filter((k) => k === 'fill' || k === 'accepted').length;
    assert.ok(writes === 4 || writes === 5, shown);
  });
});

describe('a lane given up', () => {
  it('tells of work put there after the turn last looked: positions moved by a replay elsewhere', async () => {
    const db = t.services.database.db;
    const { id } = await subscribe('http://127.0.0.1:9/never');
    const claimed = await until(() => repo.claimLane(db, id, 120_000));
    assert.equal(await repo.releaseLane(db, id, null, claimed.subscription), false, 'nothing new: idle');
    assert.equal((await repo.selectSubscription(db, id))?.next_attempt_at, null);
    const again = await until(() => repo.claimLane(db, id, 120_000));
    await repo.updateSubscription(db, id, { events_lo: 0, events_after_ms: 5, events_after_seq: 0 });
    assert.equal(await repo.releaseLane(db, id, null, again.subscription), true, 'moved since the turn saw it');
    assert.ok((await repo.selectSubscription(db, id))?.next_attempt_at, 'due for the sweep');
  });
});

function eventPositionColumns(s: repo.SubscriptionRow) {
  return {
    events_lo: s.events_lo,
    events_hi: s.events_hi,
    events_after_ms: s.events_after_ms,
    events_after_seq: s.events_after_seq,
  };
}

describe('reads shared by lanes in step', () => {
  it('lanes asking together make one horizon read, which says whose owners have facts past their positions', async () => {
    const db = t.services.database.db;
    const gateway = (await gatewayToken(t, account.facilities[0]!.id)).token;
    assert.equal((await postEvents(t, gateway, [event()])).status, 200);
    const before = await commitHorizon(db);
    // Facility status changes recorded after `before` (the facility has reported: its gateway is ok).
    await t.services.facilityStatus.recordStatusChanges(Date.now());
    const { id } = await subscribe('http://127.0.0.1:9/never', ['gateway.events', 'facility.status']);
    const s = (await repo.selectSubscription(db, id))!;
    const reads = createLaneReads(db, facts());
    const behind = { ...s, facts_txid: before };
    const current = { ...s, facts_txid: await commitHorizon(db) };
    const eventsOnly = { ...s, topics: ['gateway.events' as const], facts_txid: before };
    const answers = await Promise.all([reads.horizon(behind), reads.horizon(current), reads.horizon(eventsOnly)]);
    assert.equal(reads.reads, 1, 'one statement for the three');
    assert.ok(answers.every((a) => a.hi === answers[0]!.hi && a.hi >= current.facts_txid));
    assert.deepEqual([...answers[0]!.facts], ['facility.status'], 'changes past its position');
    assert.deepEqual([...answers[1]!.facts], [], 'none past its position: its facts are not read');
    assert.deepEqual([...answers[2]!.facts], [], 'a lane without that topic is not asked');
    // A read already made is not reused: the next ask reads again.
    await reads.horizon(current);
    assert.equal(reads.reads, 2);
  });

  it('an events body rendered from the slice’s JSON is byte for byte the envelope', () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    const data = { events: [{ id: 'e"1', details: 'ü\n', n: 1 }] };
    assert.equal(
      webhookEnvelopeOf('d-1', 'gateway.events', at, JSON.stringify(data)),
      webhookEnvelope('d-1', 'gateway.events', at, data),
    );
  });

  it('lanes of the same selection at the same position share one read of their next slice', async () => {
    const db = t.services.database.db;
    const { id } = await subscribe('http://127.0.0.1:9/never');
    const s = (await repo.selectSubscription(db, id))!;
    const gateway = (await gatewayToken(t, account.facilities[1]!.id)).token;
    assert.equal((await postEvents(t, gateway, [event(), event()])).status, 200);
    const hi = await commitHorizon(db);
    const events = t.services.events.facts;
    const [a, b] = await Promise.all([
      events.nextSlice(eventSelection(s), eventPosition(s), hi, 100),
      events.nextSlice(eventSelection(s), eventPosition(s), hi, 100),
    ]);
    assert.equal(a.slice?.count, 2);
    assert.equal(a, b, 'one read, one result');
    const later = await events.nextSlice(eventSelection(s), eventPosition(s), hi, 100);
    assert.notEqual(later, a, 'a read that has ended is not reused');
    assert.deepEqual(later.events, a.events);
  });
});

describe('several receivers of one account', () => {
  it('each gets every event exactly once, under concurrent ingest', async () => {
    const subscriptions: { r: Receiver; secret: string }[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await startReceiver();
      receivers.push(r);
      subscriptions.push({ r, secret: (await subscribe(r.url)).secret });
    }
    const gateways = await Promise.all(account.facilities.map(async (f) => (await gatewayToken(t, f.id)).token));
    const posted: string[] = [];
    // Two controllers posting at once, 20 batches each, while the lanes deliver.
    await Promise.all(
      gateways.map(async (gateway) => {
        for (let batch = 0; batch < 20; batch++) {
          const events = Array.from({ length: 7 }, () => event({}, 1));
          posted.push(...events.map((e) => e.eventId as string));
          assert.equal((await postEvents(t, gateway, events)).status, 200);
        }
      }),
    );
    const { rows } = await t.services.database.pool.query<{ id: string }>(
      'select id from gateway_events where gwc_event_id = any($1)',
      [posted],
    );
    const expected = rows.map((r) => r.id).sort();
    assert.equal(expected.length, 280);
    const delivered = ({ r, secret }: { r: Receiver; secret: string }) => {
      // A delivery sent again after a late answer repeats its webhook-id and body: counted once.
      const byId = new Map<string, string[]>();
      for (const d of r.received.filter((x) => x.json.type === 'gateway.events')) {
        new Webhook(secret).verify(d.body, d.headers as Record<string, string>);
        byId.set(
          d.json.id,
          d.json.data.events.map((e: { id: string }) => e.id),
        );
      }
      return [...byId.values()].flat();
    };
    await until(() => subscriptions.every((s) => new Set(delivered(s)).size >= expected.length) || undefined, 20_000);
    for (const s of subscriptions) {
      const ids = delivered(s);
      assert.deepEqual(ids.filter((id) => expected.includes(id)).sort(), expected, 'every event, and none twice');
    }
  });
});

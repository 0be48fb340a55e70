// Support notifications grouped while open (SPEC §3.5) and the signed support webhook (§6.4):
// twenty failed images of one list are one notification and one delivery; another facility is
// another notification; a resolved one is not reopened; concurrent raisers meet on one group; a
// Pending group lasts as long as one of its auctions is Pending; the receiver verifies the
// signature with the Standard Webhooks library; the secret never reaches the log.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { auctionPartner } from '../helpers/auction-partner.ts';
import { LogCapture } from '../helpers/harness.ts';
import { bearer } from '../helpers/tenants.ts';
import { ok, typedClient } from '../helpers/client.ts';
import {
  byUnit,
  cancelUnit,
  createList,
  envelopeOf,
  record,
  setupPartner,
  supportNotifications,
  type Partner,
} from './helpers.ts';

const SECRET_BYTES = randomBytes(32).toString('base64');
const SECRET = `whsec_${SECRET_BYTES}`;

const auctions = auctionPartner({ imageHost: true, supportHook: true, env: { SUPPORT_WEBHOOK_SECRET: SECRET } });

const { deliverDueNotifications, fetchDueImages } = {
  deliverDueNotifications: (now?: Date) => auctions.t.services.support.deliverDue(now),
  fetchDueImages: (now?: Date) => auctions.t.services.auctions.fetchDueImages(now),
};

const notifications = (query: Parameters<typeof supportNotifications>[2]) =>
  supportNotifications(auctions.t, auctions.admin, query);

/** A list of `n` units at the partner's facility (or `guid`), each with one image the host does not have. */
function failingList(p: Partner, prefix: string, n: number, guid = p.guid) {
  const records = Array.from({ length: n }, (_, i) =>
    record(`${prefix}-${i + 1}`, { imageUrls: [`${auctions.host.url}/gone/${prefix}-${i + 1}.jpg`] }),
  );
  return createList(auctions.t, p, records, { guid });
}

/** What the receiver got for one notification, each verified as a Standard Webhooks receiver does. */
function deliveriesOf(notificationId: string) {
  const verifier = new Webhook(SECRET);
  return auctions.hook.received
    .filter((r) => r.body.id === notificationId)
    .map((r) => {
      const verified = verifier.verify(r.raw, {
        'webhook-id': String(r.headers['webhook-id']),
        'webhook-timestamp': String(r.headers['webhook-timestamp']),
        'webhook-signature': String(r.headers['webhook-signature']),
      }) as any;
      return { webhookId: String(r.headers['webhook-id']), body: verified };
    });
}

describe('support notifications are grouped while open', () => {
  it('twenty failed images of one list make one notification that counts them, delivered once, signed', async () => {
    await deliverDueNotifications(); // nothing left over
    const p = await setupPartner(auctions.t);
    assert.equal((await failingList(p, 'G', 20)).statusCode, 200);
    const result = await fetchDueImages();
    assert.equal(result.failed, 20);
    const open = await notifications({ facilityId: p.facilityId });
    assert.equal(open.length, 1);
    const [n] = open;
    assert.deepEqual([n.kind, n.count, n.items.length], ['IMAGE_FETCH_FAILED', 20, 20]);
    assert.match(n.message, new RegExp(`^20 images of auctions at facility ${p.guid} could not be retrieved`));
    assert.ok(n.lastOccurredAt >= n.createdAt);
    assert.deepEqual(
      n.items.map((i: any) => i.detail.unitId).sort(),
      Array.from({ length: 20 }, (_, i) => `G-${i + 1}`).sort(),
    );
    // Found from any auction it covers.
    const lastAuction = n.items.at(-1).auctionId;
    assert.deepEqual(
      (await notifications({ auctionId: lastAuction })).map((x) => x.id),
      [n.id],
    );

    assert.deepEqual(await deliverDueNotifications(), { delivered: 1, retried: 0, failed: 0 });
    const [sent] = deliveriesOf(n.id);
    assert.ok(sent, 'not delivered');
    assert.equal(sent.webhookId, `${n.id}.20`);
    assert.deepEqual(
      [sent.body.id, sent.body.type, sent.body.createdAt, sent.body.data.count, sent.body.data.items.length],
      [n.id, 'support.notification', n.createdAt, 20, 20],
    );
    assert.equal(sent.body.data.kind, 'IMAGE_FETCH_FAILED');
    // A body changed in transit does not verify.
    const received = auctions.hook.received.find((r) => r.body.id === n.id)!;
    assert.throws(() =>
      new Webhook(SECRET).verify(received.raw.replace('"count":20', '"count":21'), {
        'webhook-id': String(received.headers['webhook-id']),
        'webhook-timestamp': String(received.headers['webhook-timestamp']),
        'webhook-signature': String(received.headers['webhook-signature']),
      }),
    );

    // The group grows: not sent again at once, but once the resend interval has passed, under a
    // new webhook-id (a receiver deduplicating on it sees the update), and retries keep that id.
    assert.equal((await failingList(p, 'G', 25)).statusCode, 200); // 5 more units
    await fetchDueImages();
    const [grown] = await notifications({ facilityId: p.facilityId });
    assert.deepEqual([grown.id, grown.count, grown.delivery.status], [n.id, 25, 'pending']);
    assert.deepEqual(await deliverDueNotifications(), { delivered: 0, retried: 0, failed: 0 });
    auctions.hook.failNext(1, 503);
    const later = Date.now() + 16 * 60_000;
    assert.deepEqual(await deliverDueNotifications(new Date(later)), { delivered: 0, retried: 1, failed: 0 });
    assert.deepEqual(await deliverDueNotifications(new Date(later + 11_000)), { delivered: 1, retried: 0, failed: 0 });
    const sends = deliveriesOf(n.id);
    assert.deepEqual(
      sends.map((s) => [s.webhookId, s.body.count]),
      [
        [`${n.id}.20`, 20],
        [`${n.id}.25`, 25],
      ],
    );
  });

  it('another facility is another notification; after a resolve, a new failure opens a new one', async () => {
    const p = await setupPartner(auctions.t);
    await failingList(p, 'A', 2);
    await failingList(p, 'B', 3, p.otherGuid);
    await fetchDueImages();
    const [first] = await notifications({ facilityId: p.facilityId });
    const [other] = await notifications({ facilityId: p.otherFacilityId });
    assert.deepEqual([first.count, other.count], [2, 3]);
    assert.notEqual(first.id, other.id);

    await ok(
      typedClient(auctions.t, auctions.admin).POST('/admin/notifications/{notificationId}/resolve', {
        params: { path: { notificationId: first.id } },
        body: { resolution: 'Told the facility to fix its image host' },
      }),
      200,
    );
    await failingList(p, 'A', 3); // one more unit, one more failure
    await fetchDueImages();
    const open = await notifications({ facilityId: p.facilityId });
    assert.equal(open.length, 1);
    assert.notEqual(open[0].id, first.id);
    assert.equal(open[0].count, 1);
    const [kept] = await notifications({ state: 'resolved', facilityId: p.facilityId });
    assert.deepEqual([kept.id, kept.count], [first.id, 2]);
  });

  it('two transactions raising for one facility at once make one group', async () => {
    const p = await setupPartner(auctions.t);
    const db = auctions.t.services.database.db;
    const raise = (i: number) =>
      db.transaction().execute(async (trx) => {
        const raised = await auctions.t.services.support.raise(trx, new Date(), [
          {
            kind: 'IMAGE_FETCH_FAILED',
            reason: 'HTTP_STATUS',
            message: `Image ${i} could not be retrieved.`,
            facilityId: p.facilityId,
            auctionId: null,
            detail: { i },
          },
        ]);
        // Hold the transaction open a moment, so that the others run into it.
        await sql`select pg_sleep(0.02)`.execute(trx);
        return raised;
      });
    const raised = await Promise.all(Array.from({ length: 8 }, (_, i) => raise(i)));
    assert.equal(new Set(raised.map(([n]) => n!.id)).size, 1);
    const open = await notifications({ facilityId: p.facilityId });
    assert.equal(open.length, 1);
    assert.equal(open[0].count, 8);
    assert.deepEqual(open[0].items.map((i: any) => i.detail.i).sort(), [0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('keeps the first 100 occurrences and counts them all', async () => {
    const p = await setupPartner(auctions.t);
    const occurrence = (i: number) => ({
      kind: 'IMAGE_FETCH_FAILED' as const,
      reason: 'HTTP_STATUS',
      message: `Image ${i} could not be retrieved.`,
      facilityId: p.facilityId,
      auctionId: null,
      detail: { i },
    });
    const db = auctions.t.services.database.db;
    await db.transaction().execute((trx) =>
      auctions.t.services.support.raise(
        trx,
        new Date(),
        Array.from({ length: 70 }, (_, i) => occurrence(i)),
      ),
    );
    await db.transaction().execute((trx) =>
      auctions.t.services.support.raise(
        trx,
        new Date(),
        Array.from({ length: 70 }, (_, i) => occurrence(70 + i)),
      ),
    );
    const [n] = await notifications({ facilityId: p.facilityId });
    assert.equal(n.count, 140);
    assert.deepEqual(
      n.items.map((i: any) => i.detail.i),
      Array.from({ length: 100 }, (_, i) => i),
    );
  });

  it('a notification of Pending auctions is resolved when its last auction leaves Pending', async () => {
    const p = await setupPartner(auctions.t);
    const charity = (unitId: string) => record(unitId, { auctionType: 'Charity' });
    const r = byUnit(envelopeOf(await createList(auctions.t, p, [charity('P-1'), charity('P-2')])).data.results);
    // A third, later, joins the open one.
    const r3 = byUnit(
      envelopeOf(await createList(auctions.t, p, [charity('P-1'), charity('P-2'), charity('P-3')])).data.results,
    );
    const [n] = await notifications({ kind: 'AUCTION_PENDING', facilityId: p.facilityId });
    assert.equal(n.count, 3);
    const stillOpen = async () => (await notifications({ kind: 'AUCTION_PENDING', facilityId: p.facilityId }))[0];

    // The partner cancels one; support changes the type of another: one is still Pending.
    assert.equal((await cancelUnit(auctions.t, p, [{ unitId: 'P-1' }])).statusCode, 200);
    const typed = await ok(
      typedClient(auctions.t, auctions.admin).PATCH('/admin/auctions/{auctionId}', {
        params: { path: { auctionId: r.get('P-2').auctionId } },
        body: { auctionType: 'Lien' },
      }),
    );
    assert.equal(typed.status, 'Active');
    const open = await stillOpen();
    assert.equal(open?.id, n.id, 'resolved while an auction it covers is Pending');
    assert.deepEqual(
      open.items.map((i: any) => i.resolution ?? null),
      ['CANCELLED', 'ACTIVATED', null],
    );

    // Support cancels the last: resolved.
    await ok(
      typedClient(auctions.t, auctions.admin).POST('/admin/auctions/{auctionId}/cancel', {
        params: { path: { auctionId: r3.get('P-3').auctionId } },
        body: { reason: 'Duplicate' },
      }),
      200,
    );
    assert.equal(await stillOpen(), undefined);
    const [resolved] = await notifications({ state: 'resolved', auctionId: r3.get('P-3').auctionId });
    assert.deepEqual([resolved.id, resolved.resolution, resolved.count], [n.id, 'CANCELLED', 3]);
    assert.match(resolved.resolvedBy, /^operator:/);
  });

  it('a notification without a facility groups by what stands for one (job queue, webhook subscription)', async () => {
    const db = auctions.t.services.database.db;
    const disabled = (subscriptionId: string) => ({
      kind: 'WEBHOOK_DISABLED' as const,
      reason: 'FAILING_FOR_3_DAYS',
      message: `The webhook subscription ${subscriptionId} failed for 3 days and was disabled.`,
      facilityId: null,
      auctionId: null,
      detail: { subscriptionId, url: 'https://pms.example/hook', owner: 'account:1' },
    });
    const [a, b, a2] = await db
      .transaction()
      .execute((trx) => auctions.t.services.support.raise(trx, new Date(), [disabled('sub-a'), disabled('sub-b')]))
      .then(async (first) => [
        ...first,
        ...(await db
          .transaction()
          .execute((trx) => auctions.t.services.support.raise(trx, new Date(), [disabled('sub-a')]))),
      ]);
    assert.notEqual(a!.id, b!.id);
    assert.deepEqual([a2!.id, a2!.count], [a!.id, 2]);
    assert.match(a2!.message, /^The webhook subscription sub-a was disabled 2 times\. The first: /);

    const deadLetter = auctions.t.services.auctions.jobs.find((job) => job.name === 'auctions.dead-letter')!;
    await deadLetter.handle([
      { id: 'job-a', name: 'auctions.close-ended', data: {} },
      { id: 'job-b', name: 'auctions.close-ended', data: {} },
      { id: 'job-c', name: 'auctions.maintenance', data: {} },
    ] as never);
    const jobs = await notifications({ kind: 'JOB_FAILED' });
    const byQueue = new Map(jobs.map((n) => [n.detail.queue, n]));
    assert.equal(byQueue.get('auctions.close-ended').count, 2);
    assert.equal(byQueue.get('auctions.maintenance').count, 1);
  });

  it('never logs the signing secret', async () => {
    assert.ok(auctions.t.logs.lines.length > 0);
    assert.ok(!auctions.t.logs.text.includes(SECRET_BYTES), 'the secret is in the log');
    // Should the configuration itself ever be logged, the secret is redacted.
    const capture = new LogCapture();
    const config = loadConfig({ SUPPORT_WEBHOOK_SECRET: SECRET, LOG_LEVEL: 'info' });
    createLogger(config, capture).info({ config }, 'configuration');
    createLogger(config, capture).info({ supportWebhookSecret: SECRET, SUPPORT_WEBHOOK_SECRET: SECRET }, 'flat');
    assert.equal(capture.lines.length, 2);
    assert.ok(!capture.text.includes(SECRET_BYTES), capture.text);
    assert.match(capture.text, /"supportWebhookSecret":"\[redacted\]"/);
  });
});

describe('the list of notifications', () => {
  it('refuses a state other than open, resolved or all, naming it', async () => {
    for (const state of ['closed', 'OPEN', '']) {
      const response = await auctions.t.app.inject({
        method: 'GET',
        url: `/admin/notifications?state=${state}`,
        headers: bearer(auctions.admin),
      });
      assert.equal(response.statusCode, 400, `${state}: ${response.body}`);
      assert.ok(
        response.json().errors.some((e: { path: string }) => e.path === 'state'),
        response.body,
      );
    }
    for (const state of ['open', 'resolved', 'all'] as const) await notifications({ state });
  });
});

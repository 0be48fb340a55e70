// The auction life cycle (SPEC §3.3) and support (§3.5): admin routes, the closing job, charity
// enrolment, support notifications stored, listed, logged and POSTed to a webhook with retries.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isValidHistory } from '../../src/auctions/transitions.ts';
import { auctionPartner } from '../helpers/auction-partner.ts';
import { bearer } from '../helpers/tenants.ts';
import {
  byUnit,
  cancelUnit,
  createList,
  envelopeOf,
  readAuction,
  record,
  setupPartner,
  supportNotifications,
  type Partner,
} from './helpers.ts';

const auctions = auctionPartner({ supportHook: true, env: { AUCTION_RECREATE_WAIT_MINUTES: '15' } });

const inject = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, token = auctions.admin) =>
  auctions.t.app.inject({
    method,
    url,
    headers: bearer(token),
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

const notificationsOf = (auctionId: string, state: 'open' | 'resolved' | 'all' = 'all') =>
  supportNotifications(auctions.t, auctions.admin, { state, auctionId });

async function historyIsValid(p: Partner, auctionId: string) {
  const auction = await readAuction(auctions.t, p, auctionId);
  assert.ok(isValidHistory(auction.history), `invalid history: ${JSON.stringify(auction.history)}`);
  assert.equal(auction.history.at(-1).to, auction.status);
  return auction;
}

describe('support notifications', () => {
  it('Pending auctions of one facility are one notification, stored, listed, logged and POSTed to the webhook', async () => {
    const p = await setupPartner(auctions.t);
    const result = envelopeOf(
      await createList(auctions.t, p, [
        record('U-1', { auctionType: 'Charity' }),
        record('U-2', { description: '', imageUrls: [] }),
      ]),
    );
    const r = byUnit(result.data.results);
    const [group] = await notificationsOf(r.get('U-1').auctionId, 'open');
    assert.equal(group.kind, 'AUCTION_PENDING');
    assert.equal(group.reason, 'CHARITY_NOT_ENROLLED');
    assert.equal(group.facilityId, p.facilityId);
    assert.equal(group.count, 2);
    assert.match(group.message, new RegExp(`^2 auctions at facility ${p.guid} were held Pending\\. The first: `));
    assert.match(group.message, /unit U-1 .*Pending.*not enrolled in the charity programme/);
    assert.equal(group.delivery.status, 'pending');
    assert.deepEqual(
      (await notificationsOf(r.get('U-2').auctionId)).map((n) => n.id),
      [group.id],
    );
    const [charity, incomplete] = group.items;
    assert.deepEqual([charity.auctionId, charity.reason], [r.get('U-1').auctionId, 'CHARITY_NOT_ENROLLED']);
    assert.deepEqual([incomplete.auctionId, incomplete.reason], [r.get('U-2').auctionId, 'INCOMPLETE']);
    assert.match(incomplete.message, /lacks description, imageUrls/);
    assert.deepEqual(incomplete.detail.missing, ['description', 'imageUrls']);
    assert.ok(
      auctions.t.logs.lines.some(
        (line) =>
          line.includes(group.id) &&
          line.includes('"level":40') &&
          line.includes('support notification: 2 auctions') &&
          line.includes('"count":2'),
      ),
      'not logged',
    );

    const delivered = await auctions.t.services.support.deliverDue();
    assert.ok(delivered.delivered >= 1);
    const sent = auctions.hook.received.filter((h) => h.body.id === group.id);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.headers['content-type'], 'application/json');
    assert.equal(sent[0]!.headers['x-gatehouse-notification-id'], group.id);
    // No SUPPORT_WEBHOOK_SECRET here: sent unsigned, with the warning at start.
    assert.equal(sent[0]!.headers['webhook-signature'], undefined);
    assert.ok(auctions.t.logs.lines.some((line) => line.includes('sent unsigned') && line.includes('"level":40')));
    const body = sent[0]!.body;
    assert.deepEqual(
      [body.type, body.kind, body.reason, body.auctionId, body.count],
      ['support.notification', 'AUCTION_PENDING', 'CHARITY_NOT_ENROLLED', r.get('U-1').auctionId, 2],
    );
    assert.deepEqual(
      [body.data.id, body.data.count, body.data.items.length, body.createdAt],
      [group.id, 2, 2, group.createdAt],
    );
    const [after] = await notificationsOf(r.get('U-1').auctionId);
    assert.equal(after.delivery.status, 'delivered');
    assert.equal(after.delivery.attempts, 1);
  });

  it('retries a failed webhook delivery with back-off, then gives up and says so', async () => {
    const deliverDueNotifications = auctions.t.services.support.deliverDue;
    await deliverDueNotifications(); // nothing left over from other tests
    const p = await setupPartner(auctions.t);
    const id = envelopeOf(await createList(auctions.t, p, [record('U-1', { auctionType: 'Charity' })])).data.results[0]
      .auctionId;
    auctions.hook.failNext(2, 503);
    const start = Date.now();
    assert.deepEqual(await deliverDueNotifications(new Date(start)), { delivered: 0, retried: 1, failed: 0 });
    let [n] = await notificationsOf(id);
    assert.deepEqual([n.delivery.status, n.delivery.attempts, n.delivery.lastError], ['pending', 1, 'HTTP 503']);
    // Not due again before its back-off has passed.
    assert.deepEqual(await deliverDueNotifications(new Date(start + 5_000)), { delivered: 0, retried: 0, failed: 0 });
    assert.deepEqual(await deliverDueNotifications(new Date(start + 11_000)), { delivered: 0, retried: 1, failed: 0 });
    assert.deepEqual(await deliverDueNotifications(new Date(start + 11_000 + 31_000)), {
      delivered: 1,
      retried: 0,
      failed: 0,
    });
    [n] = await notificationsOf(id);
    assert.deepEqual([n.delivery.status, n.delivery.attempts, n.delivery.lastError], ['delivered', 3, null]);

    // A receiver that never accepts: 8 attempts, then failed for good, and an error in the log.
    const q = await setupPartner(auctions.t);
    const other = envelopeOf(await createList(auctions.t, q, [record('U-1', { auctionType: 'Charity' })])).data
      .results[0].auctionId;
    auctions.hook.failNext(1000, 500);
    let clock = Date.now();
    for (let i = 0; i < 8; i++) {
      await deliverDueNotifications(new Date(clock));
      clock += 2 * 3600_000;
    }
    auctions.hook.failNext(0);
    [n] = await notificationsOf(other);
    assert.deepEqual([n.delivery.status, n.delivery.attempts], ['failed', 8]);
    assert.ok(
      auctions.t.logs.lines.some(
        (line) => line.includes('"level":50') && line.includes('support webhook delivery failed for good'),
      ),
    );
  });

  it('a job that exhausted its retries becomes a JOB_FAILED notification', async () => {
    const deadLetter = auctions.t.services.auctions.jobs.find((job) => job.name === 'auctions.dead-letter')!;
    await deadLetter.handle([{ id: 'job-1', name: 'auctions.fetch-images', data: {} } as never]);
    const response = await inject('GET', '/admin/notifications?kind=JOB_FAILED');
    const [n] = response.json().notifications;
    assert.equal(n.reason, 'RETRIES_EXHAUSTED');
    assert.match(n.message, /auctions\.fetch-images \(job-1\) failed after every retry/);
  });

  it('lists open and resolved notifications, pages them, and resolves one by hand; a later one opens anew', async () => {
    const p = await setupPartner(auctions.t);
    const listed: Record<string, unknown>[] = [];
    const ids: string[] = [];
    for (const unitId of ['U-1', 'U-2', 'U-3']) {
      listed.push(record(unitId, { auctionType: 'Charity' }));
      await createList(auctions.t, p, listed);
      const open = (await inject('GET', `/admin/notifications?facilityId=${p.facilityId}`)).json().notifications;
      assert.equal(open.length, 1);
      assert.equal(open[0].count, 1);
      ids.push(open[0].id);
      if (unitId === 'U-3') break;
      const resolved = await inject('POST', `/admin/notifications/${open[0].id}/resolve`, {
        resolution: 'Called the facility',
      });
      assert.equal(resolved.statusCode, 200);
      assert.equal(resolved.json().resolution, 'Called the facility');
      assert.match(resolved.json().resolvedBy, /^operator:/);
    }
    assert.equal(new Set(ids).size, 3, 'a raise after a resolve joined the resolved notification');
    const page1 = (await inject('GET', `/admin/notifications?state=all&facilityId=${p.facilityId}&limit=2`)).json();
    assert.deepEqual(
      page1.notifications.map((n: any) => n.id),
      [ids[2], ids[1]],
    );
    assert.equal(page1.hasMore, true);
    const page2 = (
      await inject(
        'GET',
        `/admin/notifications?state=all&facilityId=${p.facilityId}&limit=2&cursor=${page1.nextCursor}`,
      )
    ).json();
    assert.deepEqual(
      page2.notifications.map((n: any) => n.id),
      [ids[0]],
    );
    const resolved = (await inject('GET', `/admin/notifications?state=resolved&facilityId=${p.facilityId}`)).json();
    assert.equal(resolved.notifications.length, 2);
    assert.equal(
      (await inject('POST', '/admin/notifications/00000000-0000-0000-0000-000000000000/resolve', {})).statusCode,
      404,
    );
    const forbidden = await inject('GET', '/admin/notifications', undefined, p.token);
    assert.equal(forbidden.statusCode, 403);
    assert.match(String(forbidden.headers['content-type']), /problem\+json/);
  });
});

describe('support resolves Pending auctions', () => {
  it('enrolling the facility activates its Pending charity auctions; an incomplete one stays Pending for that alone', async () => {
    const p = await setupPartner(auctions.t);
    const r = byUnit(
      envelopeOf(
        await createList(auctions.t, p, [
          record('U-1', { auctionType: 'Charity' }),
          record('U-2', { auctionType: 'Charity', imageUrls: [] }),
          record('U-3'),
        ]),
      ).data.results,
    );
    const enrol = await inject('POST', `/admin/facilities/${p.facilityId}/charity-enrolment`);
    assert.equal(enrol.statusCode, 200, enrol.body);
    assert.deepEqual(enrol.json(), {
      facilityId: p.facilityId,
      guid: p.guid,
      charityEnrolled: true,
      activated: [r.get('U-1').auctionId],
      stillPending: [r.get('U-2').auctionId],
    });
    const u1 = await historyIsValid(p, r.get('U-1').auctionId);
    assert.equal(u1.status, 'Active');
    assert.deepEqual(u1.pendingReasons, []);
    assert.deepEqual(
      [u1.history[1].from, u1.history[1].to, u1.history[1].reason],
      ['Pending', 'Active', 'CHARITY_ENROLLED'],
    );
    assert.match(u1.history[1].actor, /^operator:/);
    const u2 = await historyIsValid(p, r.get('U-2').auctionId);
    assert.deepEqual([u2.status, u2.pendingReasons], ['Pending', ['INCOMPLETE']]);
    // One notification covers both: it stays open while U-2 is Pending, and says U-1 was activated.
    const [n1] = await notificationsOf(r.get('U-1').auctionId);
    assert.equal(n1.resolvedAt, null, 'resolved while an auction it covers is still Pending');
    assert.deepEqual(
      n1.items.map((i: any) => [i.auctionId, i.resolution ?? null]),
      [
        [r.get('U-1').auctionId, 'ACTIVATED'],
        [r.get('U-2').auctionId, null],
      ],
    );
    assert.deepEqual(
      (await notificationsOf(r.get('U-2').auctionId, 'open')).map((n) => n.id),
      [n1.id],
    );
    // A charity record now goes straight to Active.
    const later = envelopeOf(
      await createList(auctions.t, p, [
        record('U-1', { auctionType: 'Charity' }),
        record('U-2', { auctionType: 'Charity', imageUrls: [] }),
        record('U-3'),
        record('U-4', { auctionType: 'Charity' }),
      ]),
    );
    assert.equal(byUnit(later.data.results).get('U-4').outcome, 'created');
    // Enrolment is idempotent; withdrawal holds new charity auctions again.
    assert.deepEqual(
      (await inject('POST', `/admin/facilities/${p.facilityId}/charity-enrolment`)).json().activated,
      [],
    );
    assert.equal(
      (await inject('DELETE', `/admin/facilities/${p.facilityId}/charity-enrolment`)).json().charityEnrolled,
      false,
    );
    const held = envelopeOf(
      await createList(auctions.t, p, [
        record('U-1', { auctionType: 'Charity' }),
        record('U-2', { auctionType: 'Charity', imageUrls: [] }),
        record('U-3'),
        record('U-4', { auctionType: 'Charity' }),
        record('U-5', { auctionType: 'Charity' }),
      ]),
    );
    assert.equal(byUnit(held.data.results).get('U-5').reason, 'CHARITY_NOT_ENROLLED');
    assert.equal(
      (await inject('POST', '/admin/facilities/00000000-0000-0000-0000-000000000000/charity-enrolment')).statusCode,
      404,
    );
  });

  it('changing the type activates a Pending charity auction; completing a record activates an incomplete one', async () => {
    const p = await setupPartner(auctions.t);
    const r = byUnit(
      envelopeOf(
        await createList(auctions.t, p, [
          record('U-1', { auctionType: 'Charity' }),
          record('U-2', { description: null, imageUrls: [] }),
        ]),
      ).data.results,
    );
    const typed = await inject('PATCH', `/admin/auctions/${r.get('U-1').auctionId}`, { auctionType: 'Lien' });
    assert.equal(typed.statusCode, 200, typed.body);
    assert.deepEqual(
      [typed.json().status, typed.json().auctionType, typed.json().history.at(-1).reason],
      ['Active', 'Lien', 'TYPE_CHANGED'],
    );

    const partial = await inject('PATCH', `/admin/auctions/${r.get('U-2').auctionId}`, {
      description: 'Boxes and a bike',
    });
    assert.deepEqual(
      [partial.json().status, partial.json().pendingReasons, partial.json().history.at(-1).trigger],
      ['Pending', ['INCOMPLETE'], 'amend'],
    );
    assert.deepEqual(partial.json().missingFields, ['imageUrls'], 'what is still missing after the description');
    const complete = await inject('PATCH', `/admin/auctions/${r.get('U-2').auctionId}`, {
      imageUrls: ['https://pms.example/u2.jpg'],
    });
    assert.equal(complete.json().status, 'Active');
    assert.equal('missingFields' in complete.json(), false);
    assert.equal(complete.json().history.at(-1).reason, 'RECORD_COMPLETED');
    assert.deepEqual(
      complete.json().images.map((i: any) => [i.sourceUrl, i.status]),
      [['https://pms.example/u2.jpg', 'pending']],
    );
    assert.ok(isValidHistory(complete.json().history));

    // An Active auction cannot change; an invalid change is refused with its paths.
    const active = await inject('PATCH', `/admin/auctions/${r.get('U-1').auctionId}`, { description: 'new' });
    assert.equal(active.statusCode, 409);
    assert.equal(active.json().code, 'AUCTION_NOT_PENDING');
    const again = envelopeOf(
      await createList(auctions.t, p, [
        record('U-1', { auctionType: 'Charity' }),
        record('U-2', { description: null, imageUrls: [] }),
        record('U-3', { auctionType: 'Charity' }),
      ]),
    );
    const pendingId = byUnit(again.data.results).get('U-3').auctionId;
    const invalid = await inject('PATCH', `/admin/auctions/${pendingId}`, {
      auctionType: 'Gift',
      minimumBid: -5,
      unitId: 'X',
    });
    assert.equal(invalid.statusCode, 400);
    assert.deepEqual(
      invalid
        .json()
        .errors.map((e: any) => e.path)
        .sort(),
      ['auctionType', 'minimumBid', 'unitId'],
    );
    assert.equal((await readAuction(auctions.t, p, pendingId)).status, 'Pending', 'an invalid change was applied');
  });

  it('support cancels an open auction, once', async () => {
    const p = await setupPartner(auctions.t);
    const id = envelopeOf(await createList(auctions.t, p, [record('U-1', { auctionType: 'Charity' })])).data.results[0]
      .auctionId;
    const cancelled = await inject('POST', `/admin/auctions/${id}/cancel`, { reason: 'Duplicate listing' });
    assert.equal(cancelled.statusCode, 200);
    assert.deepEqual(
      [cancelled.json().status, cancelled.json().history.at(-1).reason, cancelled.json().history.at(-1).note],
      ['Cancelled', 'CANCELLED_BY_SUPPORT', 'Duplicate listing'],
    );
    assert.equal((await notificationsOf(id))[0].resolution, 'CANCELLED');
    assert.equal((await inject('POST', `/admin/auctions/${id}/cancel`, {})).statusCode, 409);
  });
});

describe('sales and closing', () => {
  it('a reported sale closes an Active auction as ClosedSold; nothing else can be sold', async () => {
    const p = await setupPartner(auctions.t);
    const r = byUnit(
      envelopeOf(await createList(auctions.t, p, [record('U-1'), record('U-2', { auctionType: 'Charity' })])).data
        .results,
    );
    const sold = await inject('POST', `/admin/auctions/${r.get('U-1').auctionId}/outcome`, {
      salePrice: 310.5,
      buyerName: 'B. Bidder',
      soldAt: '2030-12-08T08:00:00-07:00',
    });
    assert.equal(sold.statusCode, 200, sold.body);
    assert.equal(sold.json().status, 'ClosedSold');
    assert.deepEqual(sold.json().sale, {
      salePrice: 310.5,
      soldAt: '2030-12-08T15:00:00.000Z',
      buyerName: 'B. Bidder',
    });
    assert.deepEqual(sold.json().history.at(-1).reason, 'SALE_REPORTED');
    const twice = await inject('POST', `/admin/auctions/${r.get('U-1').auctionId}/outcome`, { salePrice: 1 });
    assert.equal(twice.statusCode, 409);
    assert.equal(twice.json().code, 'AUCTION_NOT_ACTIVE');
    assert.equal(
      (await inject('POST', `/admin/auctions/${r.get('U-2').auctionId}/outcome`, { salePrice: 1 })).statusCode,
      409,
    );
    assert.equal(
      (await inject('POST', `/admin/auctions/${r.get('U-2').auctionId}/outcome`, { salePrice: 1.234 })).statusCode,
      400,
    );
    assert.equal(
      (await inject('POST', '/admin/auctions/00000000-0000-0000-0000-000000000000/outcome', { salePrice: 1 }))
        .statusCode,
      404,
    );
    // The unit's auction was sold: the same record leaves it alone, a new record starts a new auction.
    const same = envelopeOf(
      await createList(auctions.t, p, [record('U-1'), record('U-2', { auctionType: 'Charity' })]),
    );
    assert.deepEqual(
      [byUnit(same.data.results).get('U-1').outcome, byUnit(same.data.results).get('U-1').status],
      ['unchanged', 'ClosedSold'],
    );
    const relisted = envelopeOf(
      await createList(auctions.t, p, [record('U-1', { minimumBid: 50 }), record('U-2', { auctionType: 'Charity' })]),
    );
    assert.equal(byUnit(relisted.data.results).get('U-1').outcome, 'created');
  });

  it('the closing job closes Active auctions whose end passed as ClosedUnsold, and nothing else', async () => {
    const p = await setupPartner(auctions.t);
    const now = new Date().toISOString();
    const soon = new Date(Date.now() + 60_000).toISOString();
    const r = byUnit(
      envelopeOf(
        await createList(auctions.t, p, [
          record('U-1', { startsAt: now, endsAt: soon }),
          record('U-2', { endsAt: soon, startsAt: now, auctionType: 'Charity' }),
          record('U-3'),
        ]),
      ).data.results,
    );
    const { closeEnded } = auctions.t.services.auctions;
    assert.equal(await closeEnded(new Date()), 0, 'closed before its end');
    const closed = await closeEnded(new Date(Date.now() + 120_000));
    assert.ok(closed >= 1);
    const u1 = await historyIsValid(p, r.get('U-1').auctionId);
    assert.equal(u1.status, 'ClosedUnsold');
    assert.deepEqual(
      [u1.history.at(-1).reason, u1.history.at(-1).actor, u1.history.at(-1).trigger],
      ['ENDED_UNSOLD', 'system:closing', 'endUnsold'],
    );
    assert.ok(u1.closedAt);
    assert.equal(
      (await readAuction(auctions.t, p, r.get('U-2').auctionId)).status,
      'Pending',
      'a Pending auction was closed',
    );
    assert.equal((await readAuction(auctions.t, p, r.get('U-3').auctionId)).status, 'Active');
    const cancel = await cancelUnit(auctions.t, p, [{ unitId: 'U-1' }]);
    assert.equal(cancel.statusCode, 409);
    assert.equal(envelopeOf(cancel).meta.warnings[0]!.code, 'ALREADY_CLOSED');
  });

  it('admin reads: one auction and filtered lists', async () => {
    const p = await setupPartner(auctions.t);
    const id = envelopeOf(await createList(auctions.t, p, [record('U-1'), record('U-2')])).data.results[0].auctionId;
    const one = await inject('GET', `/admin/auctions/${id}`);
    assert.equal(one.statusCode, 200);
    assert.equal(one.json().unitId, 'U-1');
    assert.equal(one.json().history.length, 1);
    const list = (await inject('GET', `/admin/auctions?facilityId=${p.facilityId}&status=Active`)).json();
    assert.deepEqual(list.auctions.map((a: any) => a.unitId).sort(), ['U-1', 'U-2']);
    assert.equal((await inject('GET', '/admin/auctions/not-an-id')).statusCode, 404);
    assert.equal((await inject('GET', `/admin/auctions/${id}`, undefined, p.token)).statusCode, 403);
  });
});

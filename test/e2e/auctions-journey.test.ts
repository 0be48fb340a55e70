// "Done means" of issue 5: a partner's whole journey against the real server process — token,
// create, read back, images stored, cancel, re-create after the wait, charity pending resolved by
// support, auctions closed — with an image host and a support webhook as real loopback servers.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { isValidHistory } from '../../src/auctions/transitions.ts';
import { clientFor, eventually, ok, tokenFor } from '../helpers/e2e.ts';
import { runCli } from '../helpers/process.ts';
import { makeJpeg, startImageHost, type ImageHost } from '../net/image-host.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../auctions/webhook-receiver.ts';
import { realServer } from '../helpers/server.ts';

let host: ImageHost;
let hook: WebhookReceiver;
const served = realServer(
  { AUCTION_RECREATE_WAIT_MINUTES: '0' },
  {
    async prepare() {
      host = await startImageHost();
      hook = await startWebhookReceiver();
      return { IMAGE_FETCH_ALLOW_HOSTS: host.hostPort, SUPPORT_WEBHOOK_URL: hook.url };
    },
    async cleanup() {
      await host?.close();
      await hook?.close();
    },
  },
);

const token = async (clientId: string, clientSecret: string) =>
  tokenFor(served.url, { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });

it("a partner's whole journey, against the real server", async () => {
  // The operator, with the command line (through the running server's database), then the admin routes.
  const cli = await runCli(['admin', 'app', 'create', '--name', 'Support desk', '--operator'], served.database.env);
  assert.equal(cli.code, 0, cli.stderr);
  const operator = JSON.parse(cli.stdout) as { clientId: string; clientSecret: string };
  const ops = clientFor(served.url, await token(operator.clientId, operator.clientSecret));
  const account = await ok(ops.POST('/admin/accounts', { body: { name: 'Sunrise Storage' } }), 201);
  const facility = await ok(
    ops.POST('/admin/facilities', {
      body: { accountId: account.id, name: 'Sunrise North', timeZone: 'America/Denver', guid: 'FAC-0042' },
    }),
    201,
  );
  const app = await ok(
    ops.POST('/admin/applications', {
      body: { name: 'Acme PMS', clientType: 'AcmePMS', facilityGuids: ['FAC-0042'] },
    }),
    201,
  );

  // 1. The partner's token.
  const partner = clientFor(served.url, await token(app.clientId, app.clientSecret));
  const list = (units: any[]) =>
    ok(
      partner.POST('/api/3/auctioninfo', {
        params: { query: { dryRun: false } },
        body: { guid: 'FAC-0042', clientType: 'AcmePMS', auctionableUnitInfo: units },
      }),
      200,
    );
  const startsAt = new Date().toISOString();
  const unit = (unitId: string, extra: Record<string, unknown> = {}) => ({
    unitId,
    unitName: `A${unitId}`,
    description: 'Sofa, boxes, two bikes',
    categories: ['Household Furniture', 'Boxes'],
    startsAt,
    endsAt: '2031-12-08T09:00:00-07:00',
    minimumBid: 25,
    imageUrls: [`${host.url}/photo.jpg`, `${host.url}/img/${unitId}.jpg`],
    ...extra,
  });

  // 2. Create: one Lien auction, one charity auction of a facility that is not enrolled.
  const created = await list([unit('U-1001'), unit('U-1002', { auctionType: 'Charity' })]);
  assert.equal(created.meta.ack, true);
  assert.deepEqual(created.data.summary, { created: 1, pending: 1, unchanged: 0, deferred: 0, removed: 0 });
  const [lien, charity]: any[] = created.data.results;
  assert.deepEqual([charity.status, charity.reason], ['Pending', 'CHARITY_NOT_ENROLLED']);

  // 3. Read back; 4. the images are fetched and stored by the jobs, and served.
  const read = async (auctionId: string): Promise<any> =>
    (await ok(partner.GET('/api/3/auctions/{auctionId}', { params: { path: { auctionId } } }))).data;
  /** The auction once it is as `done` says (the jobs run on their own schedule). */
  const readOnce = (auctionId: string, done: (auction: any) => boolean, what: string) =>
    eventually(
      what,
      async () => {
        const auction = await read(auctionId);
        return done(auction) && auction;
      },
      60_000,
    );
  const stored = await readOnce(
    lien.auctionId,
    (a) => a.images.every((i: any) => i.status === 'stored'),
    'the images to be stored',
  );
  assert.equal(stored.status, 'Active');
  assert.equal(stored.record.description, 'Sofa, boxes, two bikes');
  const media = await clientFor(served.url).GET('/media/{name}', {
    params: { path: { name: stored.images[0].url.replace('/media/', '') } },
    parseAs: 'arrayBuffer',
  });
  assert.equal(media.response.status, 200);
  assert.equal(media.response.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  assert.ok(Buffer.from(media.data as ArrayBuffer).equals(await makeJpeg()));

  // Support was told of the Pending auction: kept, listed, and POSTed to the webhook.
  await hook.waitFor((bodies) =>
    bodies.some((b) => b.auctionId === charity.auctionId && b.reason === 'CHARITY_NOT_ENROLLED'),
  );
  const open = await ok(ops.GET('/admin/notifications', { params: { query: { state: 'open', limit: 100 } } }));
  assert.ok(open.notifications.some((n) => n.auctionId === charity.auctionId));
  assert.match(
    await served.server.logged('support notification: The auction of unit U-1002'),
    /support notification: The auction of unit U-1002/,
  );

  // 5. Cancel; the cancel is acknowledged at once.
  const cancel = await ok(
    partner.PUT('/api/3/cancelauctions', {
      body: {
        guid: 'FAC-0042',
        clientType: 'AcmePMS',
        cancelAuctionIds: [{ unitId: 'U-1001', reason: 'Tenant paid' }],
      },
    }),
    200,
  );
  assert.equal(cancel.data.status, 'Cancelled');
  const again = await partner.PUT('/api/3/cancelauctions', {
    body: { guid: 'FAC-0042', clientType: 'AcmePMS', cancelAuctionIds: [{ unitId: 'U-1001' }] },
  });
  assert.deepEqual([again.response.status, (again.error as any)?.meta.warnings[0].code], [409, 'ALREADY_CANCELLED']);

  // 6. Re-create after the wait (AUCTION_RECREATE_WAIT_MINUTES=0 here), with new content.
  const recreated = await list([unit('U-1001', { minimumBid: 40 }), unit('U-1002', { auctionType: 'Charity' })]);
  const [second]: any[] = recreated.data.results;
  assert.deepEqual([second.outcome, second.status], ['created', 'Active']);
  assert.notEqual(second.auctionId, lien.auctionId);

  // 7. Support resolves the Pending charity auction: the facility enrols.
  const enrol = await ok(
    ops.POST('/admin/facilities/{facilityId}/charity-enrolment', { params: { path: { facilityId: facility.id } } }),
  );
  assert.deepEqual(enrol.activated, [charity.auctionId]);
  assert.equal((await read(charity.auctionId)).status, 'Active');
  const resolved = await ok(
    ops.GET('/admin/notifications', {
      params: { query: { state: 'resolved', auctionId: charity.auctionId, limit: 100 } },
    }),
  );
  assert.equal(resolved.notifications[0]?.resolution, 'ACTIVATED');

  // 8. Auctions close: a sale reported by the marketplace, and the end passing unsold.
  const sold = await ok(
    ops.POST('/admin/auctions/{auctionId}/outcome', {
      params: { path: { auctionId: second.auctionId } },
      body: { salePrice: 310 },
    }),
  );
  assert.equal(sold.status, 'ClosedSold');
  const ending = await list([
    unit('U-1001', { minimumBid: 40 }),
    unit('U-1002', { auctionType: 'Charity' }),
    unit('U-1003', { endsAt: new Date(Date.now() + 3000).toISOString(), imageUrls: [`${host.url}/photo.png`] }),
  ]);
  const third: any = ending.data.results.find((r: any) => r.unitId === 'U-1003');
  assert.equal(third.outcome, 'created');
  const closed = await readOnce(third.auctionId, (a) => a.status === 'ClosedUnsold', 'the auction to close at its end');
  assert.equal(closed.history.at(-1).actor, 'system:closing');

  // Every auction's history is a path through the transition table, with time, actor and reason.
  for (const id of [lien.auctionId, charity.auctionId, second.auctionId, third.auctionId]) {
    const auction = await read(id);
    assert.ok(isValidHistory(auction.history), JSON.stringify(auction.history));
    for (const step of auction.history) assert.ok(step.at && step.actor && step.reason);
  }
  const partnerList = await ok(partner.GET('/api/3/auctions', { params: { query: { guid: 'FAC-0042', limit: 100 } } }));
  assert.deepEqual(partnerList.data.auctions.map((a) => `${a.unitId} ${a.status}`).sort(), [
    'U-1001 Cancelled',
    'U-1001 ClosedSold',
    'U-1002 Active',
    'U-1003 ClosedUnsold',
  ]);
});

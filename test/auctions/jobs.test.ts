// The background jobs for real (pg-boss workers running): images fetched after the commit and
// stored in an S3-compatible bucket (s3rver), support notifications POSTed, auctions closed at
// their end; and wake-ups enqueued in the transaction that needs them.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { sqlRunner } from '../../src/jobs/queue.ts';
import { auctionPartner } from '../helpers/auction-partner.ts';
import { eventually } from '../helpers/e2e.ts';
import { type LocalS3, startS3 } from '../helpers/s3.ts';
import { makeJpeg } from '../net/image-host.ts';
import { createList, envelopeOf, readAuction, record } from './helpers.ts';

let s3: LocalS3 | undefined;
const auctions = auctionPartner({
  imageHost: true,
  supportHook: true,
  runJobs: true,
  async prepare() {
    s3 = await startS3('auction-media');
    return s3.env;
  },
  cleanup: () => s3?.close(),
});
const { t } = auctions;

/** The auction once it is as `done` says (the jobs run on their own schedule). */
const auctionOnce = (id: string, done: (auction: any) => boolean, what: string) =>
  eventually(
    what,
    async () => {
      const auction = await readAuction(t, auctions.partner, id);
      return done(auction) && auction;
    },
    45_000,
  );

const listed: Record<string, unknown>[] = [];
async function create(extra: Record<string, unknown>) {
  const unitId = `J-${listed.length + 1}`;
  listed.push(record(unitId, extra));
  const response = await createList(t, auctions.partner, listed);
  assert.equal(response.statusCode, 200, response.body);
  return envelopeOf(response).data.results.find((r: any) => r.unitId === unitId).auctionId as string;
}

describe('background jobs', () => {
  it('fetch images after the commit and store them in the S3 bucket, served at /media', async () => {
    const id = await create({ imageUrls: [`${auctions.host.url}/photo.jpg`, `${auctions.host.url}/photo.png`] });
    const auction = await auctionOnce(id, (a) => a.images.every((i: any) => i.status === 'stored'), 'stored images');
    const [jpeg] = auction.images;
    assert.equal(t.services.auctions.blobs.kind, 's3');
    assert.equal(await t.services.auctions.blobs.has(`${jpeg.sha256}.jpg`), true);
    const served = await t.app.inject({ method: 'GET', url: jpeg.url });
    assert.equal(served.statusCode, 200);
    assert.ok(served.rawPayload.equals(await makeJpeg()), 'the served bytes differ from the source');
    assert.equal(createHash('sha256').update(served.rawPayload).digest('hex'), jpeg.sha256);
  });

  it('deliver the support notification of a Pending auction to the webhook', async () => {
    const id = await create({ auctionType: 'Charity' });
    await auctions.hook.waitFor((bodies) => bodies.some((b) => b.auctionId === id && b.kind === 'AUCTION_PENDING'));
  });

  it('close an auction at its end', async () => {
    const id = await create({ startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + 2_500).toISOString() });
    assert.equal((await readAuction(t, auctions.partner, id)).status, 'Active');
    const closed = await auctionOnce(id, (a) => a.status === 'ClosedUnsold', 'the auction to close');
    assert.equal(closed.history.at(-1).reason, 'ENDED_UNSOLD');
  });

  it('are enqueued in the transaction: they exist when it commits, and not when it rolls back', async () => {
    const db = t.services.database.db;
    const count = async () =>
      (
        await sql<{
          n: number;
        }>`select count(*)::int as n from pgboss.job where name = 'auctions.fetch-images'`.execute(db)
      ).rows[0]!.n;
    const before = await count();
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await t.services.jobs.send('auctions.fetch-images', {}, {}, sqlRunner(trx));
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.equal(await count(), before);
    await create({ imageUrls: [`${auctions.host.url}/img/enqueued.jpg`] });
    assert.ok((await count()) > before);
  });
});
after(() => {
  // Nothing here should log an error; if something did, show it beside the failure it caused.
  for (const line of t.logs.lines) if (line.includes('"level":50')) console.log(line.slice(0, 3000));
});

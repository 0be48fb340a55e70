// The background jobs for real (pg-boss workers running): images fetched after the commit and
// stored in an S3-compatible bucket (s3rver), support notifications POSTed, auctions closed at
// their end; and wake-ups enqueued in the transaction that needs them.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import S3rver from 's3rver';
import { sqlRunner } from '../../src/jobs/queue.ts';
import { startTestApp, type TestApp } from '../helpers/harness.ts';
import { makeJpeg, startImageHost, type ImageHost } from '../net/image-host.ts';
import { createList, envelopeOf, readAuction, record, setupPartner, type Partner } from './helpers.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts';

let t: TestApp;
let host: ImageHost;
let hook: WebhookReceiver;
let s3: S3rver;
let s3Dir: string;
let p: Partner;

before(async () => {
  host = await startImageHost();
  hook = await startWebhookReceiver();
  s3Dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-s3-jobs-'));
  s3 = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: s3Dir,
    configureBuckets: [{ name: 'auction-media', configs: [] }],
  });
  const { port } = await s3.run();
  t = await startTestApp({
    runJobs: true,
    env: {
      IMAGE_FETCH_ALLOW_HOSTS: host.hostPort,
      SUPPORT_WEBHOOK_URL: hook.url,
      BLOB_STORE: 's3',
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_BUCKET: 'auction-media',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
    },
  });
  p = await setupPartner(t);
});
after(async () => {
  await t.close();
  await host.close();
  await hook.close();
  await s3.close();
  fs.rmSync(s3Dir, { recursive: true, force: true });
});

async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 45_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const listed: Record<string, unknown>[] = [];
async function create(extra: Record<string, unknown>) {
  const unitId = `J-${listed.length + 1}`;
  listed.push(record(unitId, extra));
  const response = await createList(t, p, listed);
  assert.equal(response.statusCode, 200, response.body);
  return envelopeOf(response).data.results.find((r: any) => r.unitId === unitId).auctionId as string;
}

describe('background jobs', () => {
  it('fetch images after the commit and store them in the S3 bucket, served at /media', async () => {
    const id = await create({ imageUrls: [`${host.url}/photo.jpg`, `${host.url}/photo.png`] });
    const auction = await eventually(
      () => readAuction(t, p, id),
      (a) => a.images.every((i: any) => i.status === 'stored'),
      'stored images',
    );
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
    await hook.waitFor((bodies) => bodies.some((b) => b.auctionId === id && b.kind === 'AUCTION_PENDING'));
  });

  it('close an auction at its end', async () => {
    const id = await create({ startsAt: new Date().toISOString(), endsAt: new Date(Date.now() + 2_500).toISOString() });
    assert.equal((await readAuction(t, p, id)).status, 'Active');
    const closed = await eventually(
      () => readAuction(t, p, id),
      (a) => a.status === 'ClosedUnsold',
      'the auction to close',
    );
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
    await create({ imageUrls: [`${host.url}/img/enqueued.jpg`] });
    assert.ok((await count()) > before);
  });
});
after(() => {
  // Nothing here should log an error; if something did, show it beside the failure it caused.
  for (const line of t.logs.lines) if (line.includes('"level":50')) console.log(line.slice(0, 3000));
});

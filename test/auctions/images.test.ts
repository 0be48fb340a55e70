// Image retrieval (SPEC §3.4) against a real image host on loopback: stored once per content,
// served at /media with immutable caching, every hostile answer refused, retries with back-off,
// and support notified when an image cannot be had.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { auctionPartner } from '../helpers/auction-partner.ts';
import {
  adminToken,
  cancelUnit,
  createList,
  envelopeOf,
  readAuction,
  record,
  supportNotifications,
} from './helpers.ts';

const auctions = auctionPartner({ imageHost: true, env: { IMAGE_FETCH_TIMEOUT_MS: '1500' } });

let units = 0;
/** Creates one auction with these image URLs (keeping every earlier unit in the full list). */
const listed: Record<string, unknown>[] = [];
async function auctionWithImages(urls: string[]): Promise<string> {
  const unitId = `IMG-${++units}`;
  listed.push(record(unitId, { imageUrls: urls }));
  const response = await createList(auctions.t, auctions.partner, listed);
  assert.equal(response.statusCode, 200, response.body);
  return envelopeOf(response).data.results.find((r: any) => r.unitId === unitId).auctionId;
}
const runDue = (now?: Date) => auctions.t.services.auctions.fetchDueImages(now);
const imagesOf = async (auctionId: string) =>
  (await readAuction(auctions.t, auctions.partner, auctionId)).images as any[];

describe('image retrieval', () => {
  it('stores JPEG, PNG, WebP and GIF, judged by their bytes, with their dimensions', async () => {
    const id = await auctionWithImages([
      `${auctions.host.url}/photo.jpg`,
      `${auctions.host.url}/photo.png`,
      `${auctions.host.url}/photo.webp`,
      `${auctions.host.url}/photo.gif`,
    ]);
    const result = await runDue();
    assert.ok(result.stored >= 4);
    const images = await imagesOf(id);
    assert.deepEqual(
      images.map((i) => [i.status, i.contentType, i.width, i.height]),
      [
        ['stored', 'image/jpeg', 8, 6],
        ['stored', 'image/png', 5, 4],
        ['stored', 'image/webp', 3, 3],
        ['stored', 'image/gif', 2, 2],
      ],
    );
    for (const image of images) {
      assert.match(image.url, /^\/media\/[0-9a-f]{64}\.(jpg|png|webp|gif)$/);
      assert.equal(image.url, `/media/${image.sha256}.${image.url.split('.').pop()}`);
      assert.equal(image.error, null);
      assert.equal(image.attempts, 1);
    }
  });

  it('serves stored images publicly with immutable caching, a strong ETag and nosniff', async () => {
    const id = await auctionWithImages([`${auctions.host.url}/img/served.jpg`]);
    await runDue();
    const [image] = await imagesOf(id);
    const response = await auctions.t.app.inject({ method: 'GET', url: image.url });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'image/jpeg');
    assert.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(response.headers.etag, `"${image.sha256}"`);
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
    assert.match(String(response.headers['content-security-policy']), /sandbox/);
    assert.equal(Number(response.headers['content-length']), image.bytes);
    assert.equal(createHash('sha256').update(response.rawPayload).digest('hex'), image.sha256);
    const cached = await auctions.t.app.inject({
      method: 'GET',
      url: image.url,
      headers: { 'if-none-match': `"${image.sha256}"` },
    });
    assert.equal(cached.statusCode, 304);
    assert.equal((await auctions.t.app.inject({ method: 'HEAD', url: image.url })).statusCode, 200);
    for (const missing of [
      `/media/${'0'.repeat(64)}.jpg`,
      `/media/${image.sha256}.png`,
      '/media/../../etc/passwd',
      '/media/abc.jpg',
      `/media/${image.sha256}.svg`,
    ]) {
      const r = await auctions.t.app.inject({ method: 'GET', url: missing });
      assert.equal(r.statusCode, 404, missing);
    }
  });

  it('stores identical bytes once (dedupe by SHA-256)', async () => {
    const a = await auctionWithImages([`${auctions.host.url}/img/dedupe.jpg?same`]);
    const b = await auctionWithImages([
      `${auctions.host.url}/same-photo-again.jpg`,
      `${auctions.host.url}/img/dedupe-2.jpg?same`,
    ]);
    await runDue();
    const shas = [...(await imagesOf(a)), ...(await imagesOf(b))].map((i) => i.sha256);
    assert.equal(new Set(shas).size, 1);
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from media_blobs where sha256 = ${shas[0]}`.execute(auctions.t.services.database.db);
    assert.equal(rows[0]!.n, 1);
    const dir = path.join(auctions.t.config.dataDir, 'blobs', shas[0]!.slice(0, 2), shas[0]!.slice(2, 4));
    assert.deepEqual(
      fs.readdirSync(dir).filter((f) => f.startsWith(shas[0]!)),
      [`${shas[0]}.jpg`],
    );
  });

  it('refuses what is not an image, a 50 MB image, a slow drip, a decompression bomb, a redirect to a private address, and a name that resolves to loopback', async () => {
    const id = await auctionWithImages([
      `${auctions.host.url}/claims-jpeg.html`,
      `${auctions.host.url}/svg-as-png`,
      `${auctions.host.url}/huge-declared.jpg`,
      `${auctions.host.url}/huge-chunked.jpg`,
      `${auctions.host.url}/bomb.png`,
      `${auctions.host.url}/redirect-elsewhere?to=${encodeURIComponent(`http://127.0.0.1:${auctions.host.port + 1}/x.jpg`)}`,
      `${auctions.host.url}/redirect-elsewhere?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`,
      `http://localhost:${auctions.host.port}/photo.jpg`,
      `${auctions.host.url}/missing.jpg`,
      `${auctions.host.url}/redirect-loop`,
    ]);
    await runDue();
    const images = await imagesOf(id);
    const outcome = images.map((i) => `${i.status} ${String(i.error).split(':')[0]}`);
    assert.deepEqual(outcome, [
      'failed UNSUPPORTED_TYPE',
      'failed UNSUPPORTED_TYPE',
      'failed TOO_LARGE',
      'failed TOO_LARGE',
      'failed TOO_MANY_PIXELS',
      'failed ADDRESS_NOT_ALLOWED',
      'failed ADDRESS_NOT_ALLOWED',
      'failed ADDRESS_NOT_ALLOWED',
      'failed HTTP_STATUS',
      'failed TOO_MANY_REDIRECTS',
    ]);
    for (const image of images) {
      assert.equal(image.attempts, 1, `${image.sourceUrl} was retried though it cannot succeed`);
      assert.equal(image.url, null);
    }
    // Every image that cannot be had is escalated to support.
    const admin = await adminToken(auctions.t);
    const notifications = await supportNotifications(auctions.t, admin, {
      kind: 'IMAGE_FETCH_FAILED',
      auctionId: id,
      limit: 50,
    });
    // One notification for the facility counts them (SPEC §3.5), each kept as an item.
    assert.equal(notifications.length, 1);
    const [n] = notifications;
    assert.equal(n.count, 10);
    assert.match(
      n.message,
      new RegExp(`^10 images of auctions at facility ${auctions.partner.guid} could not be retrieved`),
    );
    assert.equal(n.items.length, 10);
    assert.ok(
      n.items.every((i: any) => i.auctionId === id && /could not be retrieved after 1 attempt/.test(i.message)),
    );
    assert.deepEqual(
      n.items.map((i: any) => i.detail.position).sort((a: number, b: number) => a - b),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    );
  });

  it('a body that never ends is cut at the deadline and retried later', async () => {
    const id = await auctionWithImages([`${auctions.host.url}/drip.jpg`]);
    const now = new Date();
    const result = await runDue(now);
    assert.equal(result.retried, 1);
    const [image] = await imagesOf(id);
    assert.equal(image.status, 'pending');
    assert.match(image.error, /^TIMEOUT/);
    assert.ok(auctions.host.aborted.includes('/drip.jpg'), 'the drip connection was not closed');
  });

  it('retries with back-off, and notifies support after the last attempt', async () => {
    auctions.host.failNext('/img/flaky.jpg', 2, 503);
    const flaky = await auctionWithImages([`${auctions.host.url}/img/flaky.jpg`]);
    const start = Date.now();
    assert.equal((await runDue(new Date(start))).retried >= 1, true);
    let [image] = await imagesOf(flaky);
    assert.deepEqual([image.status, image.attempts, image.error.split(':')[0]], ['pending', 1, 'HTTP_STATUS']);
    await runDue(new Date(start + 10_000)); // before its back-off (30 s): not tried
    assert.equal((await imagesOf(flaky))[0].attempts, 1);
    await runDue(new Date(start + 31_000));
    assert.equal((await imagesOf(flaky))[0].attempts, 2);
    await runDue(new Date(start + 31_000 + 121_000));
    [image] = await imagesOf(flaky);
    assert.deepEqual([image.status, image.attempts, image.error], ['stored', 3, null]);

    auctions.host.failNext('/img/down.jpg', 1000, 502);
    const down = await auctionWithImages([`${auctions.host.url}/img/down.jpg`]);
    let clock = Date.now();
    for (let i = 0; i < 5; i++) {
      await runDue(new Date(clock));
      clock += 3600_000;
    }
    auctions.host.failNext('/img/down.jpg', 0);
    [image] = await imagesOf(down);
    assert.deepEqual([image.status, image.attempts], ['failed', 5]);
    const admin = await adminToken(auctions.t);
    const [n] = await supportNotifications(auctions.t, admin, { kind: 'IMAGE_FETCH_FAILED', auctionId: down });
    // It joined the facility's open notification of failed images.
    const item = n.items.find((i: any) => i.auctionId === down);
    assert.equal(item.reason, 'HTTP_STATUS');
    assert.match(item.message, /after 5 attempts/);
    assert.equal(item.detail.sourceUrl, `${auctions.host.url}/img/down.jpg`);
    assert.ok(n.count > 10);
  });

  it('does not fetch the images of an auction cancelled before its images were fetched', async () => {
    const id = await auctionWithImages([`${auctions.host.url}/img/never.jpg`]);
    listed.pop();
    assert.equal((await cancelUnit(auctions.t, auctions.partner, [{ unitId: `IMG-${units}` }])).statusCode, 200);
    await runDue();
    const [image] = await imagesOf(id);
    assert.equal(image.status, 'failed');
    assert.match(image.error, /^AUCTION_NOT_OPEN/);
    assert.equal(auctions.host.hits.get('/img/never.jpg') ?? 0, 0);
  });

  it('two workers never fetch the same image twice', async () => {
    const urls = Array.from({ length: 12 }, (_, i) => `${auctions.host.url}/img/once-${i}.jpg`);
    const id = await auctionWithImages(urls);
    const [a, b] = await Promise.all([runDue(), runDue()]);
    assert.equal(a.stored + b.stored, 12);
    for (let i = 0; i < 12; i++) assert.equal(auctions.host.hits.get(`/img/once-${i}.jpg`), 1);
    assert.ok((await imagesOf(id)).every((i) => i.status === 'stored'));
  });
});

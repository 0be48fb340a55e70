// Both blob stores through the one interface: the filesystem under the data directory, and an
// S3-compatible bucket (s3rver on loopback, a real HTTP server speaking the S3 protocol).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { after, before, describe, it } from 'node:test';
import { createBlobStore, type BlobStore } from '../../src/blobs/index.ts';
import { loadConfig } from '../../src/config.ts';
import { type LocalS3, startS3 } from '../helpers/s3.ts';

const keyOf = (bytes: Buffer, ext = 'jpg') => `${createHash('sha256').update(bytes).digest('hex')}.${ext}`;

function contract(name: string, make: () => BlobStore) {
  describe(`${name} blob store`, () => {
    it('stores, finds, streams back and deletes a blob by its content key', async () => {
      const store = make();
      const bytes = Buffer.from(`image bytes ${name} ${Date.now()}`);
      const key = keyOf(bytes);
      assert.equal(await store.has(key), false);
      assert.equal(await store.get(key), null);
      await store.put(key, bytes, 'image/jpeg');
      await store.put(key, bytes, 'image/jpeg'); // idempotent
      assert.equal(await store.has(key), true);
      const got = await store.get(key);
      assert.ok(got);
      assert.equal(got.size, bytes.length);
      assert.equal(await text(got.body), bytes.toString());
      await store.delete(key);
      assert.equal(await store.has(key), false);
    });

    it('keeps binary content exact, including a 3 MiB blob', async () => {
      const store = make();
      const bytes = Buffer.alloc(3 * 1024 * 1024);
      for (let i = 0; i < bytes.length; i += 4096) bytes[i] = i % 251;
      const key = keyOf(bytes, 'png');
      await store.put(key, bytes, 'image/png');
      const got = await store.get(key);
      const chunks: Buffer[] = [];
      for await (const chunk of got!.body) chunks.push(chunk as Buffer);
      assert.ok(Buffer.concat(chunks).equals(bytes), 'the stored bytes differ');
    });

    it('refuses keys that are not content addresses', async () => {
      const store = make();
      for (const key of ['../../etc/passwd', 'a.jpg', `${'a'.repeat(64)}/x.jpg`, `${'A'.repeat(64)}.jpg`]) {
        await assert.rejects(store.put(key, Buffer.from('x'), 'image/jpeg'), /invalid blob key/);
        await assert.rejects(store.get(key), /invalid blob key/);
      }
    });
  });
}

let dataDir: string;
let s3: LocalS3;

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gh-blobs-'));
  s3 = await startS3('gatehouse-test');
});
after(async () => {
  await s3.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

contract('filesystem', () => createBlobStore(loadConfig({ DATA_DIR: dataDir })));
contract('S3', () => createBlobStore(loadConfig({ DATA_DIR: dataDir, ...s3.env })));

it('the filesystem store writes under DATA_DIR/blobs, sharded by the key, with no temporary files left', async () => {
  const store = createBlobStore(loadConfig({ DATA_DIR: dataDir }));
  const bytes = Buffer.from('sharded');
  const key = keyOf(bytes, 'gif');
  await store.put(key, bytes, 'image/gif');
  const file = path.join(dataDir, 'blobs', key.slice(0, 2), key.slice(2, 4), key);
  assert.equal(fs.readFileSync(file, 'utf8'), 'sharded');
  assert.deepEqual(fs.readdirSync(path.dirname(file)), [key]);
});

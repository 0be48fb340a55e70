// Where the service keeps the bytes it stores: the filesystem under the data directory by
// default, or an S3-compatible bucket (BLOB_STORE=s3).
import type { Config } from '../config.ts';
import { dataDirLayout } from '../db/data-dir.ts';
import { FsBlobStore } from './fs-store.ts';
import type { S3Options } from './s3-store.ts';
import type { BlobStore } from './store.ts';

export { BLOB_KEY } from './key.ts';
export type { BlobStore, StoredBlob } from './store.ts';

export function createBlobStore(config: Pick<Config, 'blobStore' | 'dataDir' | 's3'>): BlobStore {
  if (config.blobStore === 's3') {
    const { endpoint, bucket, region, accessKeyId, secretAccessKey } = config.s3;
    return lazyS3BlobStore({ endpoint, bucket: bucket!, region, accessKeyId, secretAccessKey });
  }
  return new FsBlobStore(dataDirLayout(config.dataDir).blobsDir);
}

/** The S3 store, its SDK (~0.1 s to load, tens of MiB) loaded at its first use, not at start-up. */
function lazyS3BlobStore(options: S3Options): BlobStore {
  let loading: Promise<BlobStore> | undefined;
  const store = () => {
    loading ??= import('./s3-store.ts').then(({ S3BlobStore }) => new S3BlobStore(options));
    return loading;
  };
  return {
    kind: 's3',
    put: async (key, bytes, contentType) => (await store()).put(key, bytes, contentType),
    has: async (key) => (await store()).has(key),
    get: async (key) => (await store()).get(key),
    delete: async (key) => (await store()).delete(key),
  };
}

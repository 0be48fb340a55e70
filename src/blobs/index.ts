// Where the service keeps the bytes it stores: the filesystem under the data directory by
// default, or an S3-compatible bucket (BLOB_STORE=s3).
import type { Config } from '../config.ts';
import { dataDirLayout } from '../db/data-dir.ts';
import { FsBlobStore } from './fs-store.ts';
import { S3BlobStore } from './s3-store.ts';
import type { BlobStore } from './store.ts';

export { BLOB_KEY } from './key.ts';
export type { BlobStore, StoredBlob } from './store.ts';

export function createBlobStore(config: Pick<Config, 'blobStore' | 'dataDir' | 's3'>): BlobStore {
  if (config.blobStore === 's3') {
    const { endpoint, bucket, region, accessKeyId, secretAccessKey } = config.s3;
    return new S3BlobStore({ endpoint, bucket: bucket!, region, accessKeyId, secretAccessKey });
  }
  return new FsBlobStore(dataDirLayout(config.dataDir).blobsDir);
}

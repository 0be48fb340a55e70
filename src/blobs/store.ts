// Where the service keeps the bytes it stores (auction images): the filesystem under the data
// directory by default, or an S3-compatible bucket (BLOB_STORE=s3). Keys are content addresses
// (`<sha256>.<ext>`), so a put of an existing key is a no-op and nothing is ever overwritten.
import type { Readable } from 'node:stream';
import type { Config } from '../config.ts';
import { dataDirLayout } from '../db/data-dir.ts';
import { FsBlobStore } from './fs-store.ts';
import { S3BlobStore } from './s3-store.ts';

export { BLOB_KEY } from './key.ts';

export interface StoredBlob {
  body: Readable;
  size: number;
}

export interface BlobStore {
  readonly kind: 'fs' | 's3';
  /** Stores the bytes under the key (idempotent: the key names the content). */
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  has(key: string): Promise<boolean>;
  /** A stream of the bytes, or null when there is no such blob. */
  get(key: string): Promise<StoredBlob | null>;
  delete(key: string): Promise<void>;
}

export function createBlobStore(config: Pick<Config, 'blobStore' | 'dataDir' | 's3'>): BlobStore {
  if (config.blobStore === 's3') {
    const { endpoint, bucket, region, accessKeyId, secretAccessKey } = config.s3;
    return new S3BlobStore({ endpoint, bucket: bucket!, region, accessKeyId, secretAccessKey });
  }
  return new FsBlobStore(dataDirLayout(config.dataDir).blobsDir);
}

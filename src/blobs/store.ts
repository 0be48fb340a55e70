// What a blob store is: the bytes the service keeps (auction images) under content-address keys
// (`<sha256>.<ext>`), so a put of an existing key is a no-op and nothing is ever overwritten.
import type { Readable } from 'node:stream';

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

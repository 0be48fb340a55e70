// Stored images, named by their content: /media/<sha256>.<ext> (views.ts writes the name). The
// name is the content, so what it names never changes (the route caches it for ever).
import type { StoredBlob } from '../blobs/index.ts';
import type { AuctionDeps } from './deps.ts';
import { blobBySha256 } from './images-repository.ts';

const MEDIA_NAME = /^([0-9a-f]{64})\.(jpg|png|webp|gif)$/;

export interface StoredImage {
  /** The blob store's key. */
  key: string;
  contentType: string;
  /** A strong entity tag: the SHA-256. */
  etag: string;
}

/** The stored image a media name (`<sha256>.<ext>`) names, or null when it names none. */
export async function findStoredImage(deps: Pick<AuctionDeps, 'db'>, name: string): Promise<StoredImage | null> {
  const match = MEDIA_NAME.exec(name);
  if (!match) return null;
  const [, sha256, ext] = match;
  const blob = await blobBySha256(deps.db, sha256!);
  if (!blob || blob.extension !== ext) return null;
  return { key: `${sha256}.${ext}`, contentType: blob.content_type, etag: `"${sha256}"` };
}

/** The bytes of a stored image, or null when the blob store has lost them. */
export function readStoredImage(deps: Pick<AuctionDeps, 'blobs'>, image: StoredImage): Promise<StoredBlob | null> {
  return deps.blobs.get(image.key);
}

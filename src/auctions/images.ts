// Image retrieval (SPEC.md §3.4; the job auctions.fetch-images). `auction_images` is the work
// list: rows are written in the create transaction with a wake-up; after the commit a worker
// claims the due rows (leased, SKIP LOCKED, so several workers never fetch one image twice),
// fetches each through the SSRF-safe fetcher, judges the bytes (type by content, pixel count
// without decoding), stores them once per SHA-256, and records the outcome. Failures worth
// retrying are retried with back-off; an image that cannot be had after every attempt notifies support.
import { createHash } from 'node:crypto';
// file-type and sharp (libvips: ~0.1 s and tens of MiB) are loaded at the first image, not at start-up.
import type { Metadata } from 'sharp';
import { databaseUnavailable } from '../db/errors.ts';
import { FetchError } from '../net/safe-fetch.ts';
import type { AuctionDeps } from './deps.ts';
import * as repo from './images-repository.ts';
import { retryDelayMs } from '../net/retry.ts';
import { FETCH_IMAGES_JOB, wake } from './jobs.ts';
import { IMAGE_RETRY, LIMITS } from './model.ts';

export const IMAGE_TYPES: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
};
const SHARP_FORMAT: Record<string, string> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
};

/** Images fetched at a time by one run. */
const CONCURRENCY = 8;

export class ImageRejected extends Error {
  override name = 'ImageRejected';
  constructor(
    readonly code: 'UNSUPPORTED_TYPE' | 'TOO_MANY_PIXELS' | 'CORRUPT',
    message: string,
  ) {
    super(message);
  }
}

/** The accepted type of these leading bytes, judged by their content alone; null if none. */
export async function sniffImageType(head: Buffer): Promise<{ mime: string; ext: string } | null> {
  const { fileTypeFromBuffer } = await import('file-type');
  const type = await fileTypeFromBuffer(head);
  return type && IMAGE_TYPES[type.mime] ? { mime: type.mime, ext: IMAGE_TYPES[type.mime]! } : null;
}

export interface ImageInfo {
  mime: string;
  ext: string;
  width: number;
  height: number;
}

/**
 * What the bytes are: JPEG, PNG, WebP or GIF by their content, with dimensions read from the
 * header without decoding. More than LIMITS.imagePixels per frame (a decompression bomb) is refused.
 */
export async function inspectImage(bytes: Buffer): Promise<ImageInfo> {
  const type = await sniffImageType(bytes);
  if (!type) throw new ImageRejected('UNSUPPORTED_TYPE', 'The content is not a JPEG, PNG, WebP or GIF image.');
  const tooManyPixels = () =>
    new ImageRejected('TOO_MANY_PIXELS', `The image has more than ${LIMITS.imagePixels} pixels.`);
  const { default: sharp } = await import('sharp');
  let metadata: Metadata;
  try {
    metadata = await sharp(bytes, { limitInputPixels: LIMITS.imagePixels, sequentialRead: true }).metadata();
  } catch (error) {
    if (/pixel limit/i.test((error as Error).message)) throw tooManyPixels();
    throw new ImageRejected('CORRUPT', 'The image cannot be read.');
  }
  const { width, height, format } = metadata;
  if (!width || !height || format !== SHARP_FORMAT[type.mime])
    throw new ImageRejected('CORRUPT', 'The image cannot be read.');
  if (width * height > LIMITS.imagePixels) throw tooManyPixels();
  return { ...type, width, height };
}

export interface RunResult {
  stored: number;
  retried: number;
  failed: number;
}

type ImageDeps = Pick<AuctionDeps, 'db' | 'config' | 'queue' | 'logger' | 'blobs' | 'fetcher' | 'support'>;

/**
 * Fetches the images that are due at `now`, CONCURRENCY at a time, until none is left or the
 * time budget is spent (then it wakes its own continuation, so a job never runs for long and a
 * shutdown never waits long).
 */
export async function fetchDueImages(deps: ImageDeps, now: Date = new Date(), budgetMs = 20_000): Promise<RunResult> {
  const started = Date.now();
  const result: RunResult = { stored: 0, retried: 0, failed: 0 };
  // Images of auctions that are no longer open are not fetched.
  await repo.failImagesOfClosedAuctions(deps.db, now);
  let nextRetry: Date | null = null;
  for (;;) {
    const claims = await repo.claimDueImages(deps.db, now, CONCURRENCY * 4);
    if (claims.length === 0) break;
    let index = 0;
    const worker = async () => {
      while (index < claims.length) {
        const claim = claims[index++]!;
        const outcome = await fetchImage(deps, claim, now);
        result[outcome.kind]++;
        if (outcome.kind === 'retried' && (nextRetry === null || outcome.at < nextRetry)) nextRetry = outcome.at;
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, claims.length) }, worker));
    if (Date.now() - started > budgetMs) {
      await wake(deps.queue, FETCH_IMAGES_JOB);
      break;
    }
  }
  if (nextRetry) await wake(deps.queue, FETCH_IMAGES_JOB, { at: nextRetry });
  return result;
}

/** One attempt at one claimed image. */
async function fetchImage(
  deps: ImageDeps,
  claim: repo.ImageClaim,
  now: Date,
): Promise<{ kind: 'stored' } | { kind: 'failed' } | { kind: 'retried'; at: Date }> {
  try {
    const sniff = async (head: Buffer) => (await sniffImageType(head)) !== null;
    const fetched = await deps.fetcher.fetch(claim.source_url, { sniff });
    const info = await inspectImage(fetched.body);
    const sha256 = createHash('sha256').update(fetched.body).digest('hex');
    await storeImage(deps, sha256, fetched.body, info);
    await repo.recordImageOutcome(deps.db, claim, { status: 'stored', sha256 });
    return { kind: 'stored' };
  } catch (error) {
    // The database, not the image, failed (an outage while it was stored): the job is retried whole
    // by the queue, and the image's attempts are not spent on it.
    if (databaseUnavailable(error)) throw error;
    const { code, message, retryable } = describeFailure(error);
    if (!(error instanceof FetchError) && !(error instanceof ImageRejected)) {
      const image = { auctionId: claim.auction_id, position: claim.position };
      deps.logger.error({ err: error, image }, 'image retrieval failed unexpectedly');
    }
    const text = `${code}: ${message}`;
    if (retryable && claim.attempts < LIMITS.imageAttempts) {
      const at = new Date(now.getTime() + retryDelayMs(IMAGE_RETRY, claim.attempts));
      await repo.recordImageOutcome(deps.db, claim, { status: 'pending', error: text, nextAttemptAt: at });
      return { kind: 'retried', at };
    }
    const created = await deps.db.transaction().execute(async (trx) => {
      await repo.recordImageOutcome(trx, claim, { status: 'failed', error: text });
      const attempts = `${claim.attempts} attempt${claim.attempts === 1 ? '' : 's'}`;
      const where = `the auction of unit ${claim.unit_id} (facility ${claim.guid ?? claim.facility_id})`;
      return deps.support.raise(trx, new Date(), [
        {
          kind: 'IMAGE_FETCH_FAILED',
          reason: code,
          message: `Image ${claim.position + 1} of ${where} could not be retrieved after ${attempts}: ${message}`,
          facilityId: claim.facility_id,
          auctionId: claim.auction_id,
          detail: {
            unitId: claim.unit_id,
            guid: claim.guid,
            position: claim.position,
            sourceUrl: claim.source_url,
            attempts: claim.attempts,
            error: code,
          },
        },
      ]);
    });
    deps.support.logRaised(created);
    return { kind: 'failed' };
  }
}

/** Identical bytes are stored once: the key is their SHA-256. */
async function storeImage(deps: ImageDeps, sha256: string, bytes: Buffer, info: ImageInfo): Promise<void> {
  if (await repo.isBlobKnown(deps.db, sha256)) return;
  try {
    await deps.blobs.put(`${sha256}.${info.ext}`, bytes, info.mime);
  } catch (error) {
    throw new StorageFailed((error as Error).message);
  }
  const blob = {
    sha256,
    contentType: info.mime,
    extension: info.ext,
    bytes: bytes.length,
    width: info.width,
    height: info.height,
  };
  await repo.insertBlob(deps.db, blob);
}

class StorageFailed extends Error {
  override name = 'StorageFailed';
}

function describeFailure(error: unknown): { code: string; message: string; retryable: boolean } {
  if (error instanceof FetchError) return { code: error.code, message: error.message, retryable: error.retryable };
  if (error instanceof ImageRejected) return { code: error.code, message: error.message, retryable: false };
  if (error instanceof StorageFailed)
    return { code: 'STORAGE_FAILED', message: 'The image could not be stored.', retryable: true };
  return { code: 'INTERNAL_ERROR', message: 'The image could not be processed.', retryable: true };
}

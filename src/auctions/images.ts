// Image retrieval (SPEC.md §3.4). `auction_images` is the work list: rows are written in the
// create transaction with a wake-up job; after the commit a worker claims the due rows (leased,
// SKIP LOCKED, so several workers never fetch one image twice), fetches each through the
// SSRF-safe fetcher, judges the bytes (type by content, pixel count without decoding), stores
// them once per SHA-256, and records the outcome. Failures worth retrying are retried with
// back-off; an image that cannot be had after every attempt notifies support.
import { createHash } from 'node:crypto';
import { fileTypeFromBuffer } from 'file-type';
import { sql } from 'kysely';
import type pino from 'pino';
import sharp, { type Metadata } from 'sharp';
import type { BlobStore } from '../blobs/index.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { FetchError, type SafeFetcher } from '../net/safe-fetch.ts';
import { JOBS } from './job-names.ts';
import { LIMITS } from './model.ts';
import type { SupportNotifier } from './notifications.ts';
import type { Db } from '../db/tables.ts';
import { IMAGE_RETRY_SECONDS, retryDelayMs } from './retry.ts';

export const IMAGE_TYPES: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp', 'image/gif': 'gif' };
export const CONTENT_TYPE_OF_EXTENSION: Record<string, string> = Object.fromEntries(Object.entries(IMAGE_TYPES).map(([type, ext]) => [ext, type]));
const SHARP_FORMAT: Record<string, string> = { 'image/jpeg': 'jpeg', 'image/png': 'png', 'image/webp': 'webp', 'image/gif': 'gif' };

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
  let metadata: Metadata;
  try {
    metadata = await sharp(bytes, { limitInputPixels: LIMITS.imagePixels, sequentialRead: true }).metadata();
  } catch (error) {
    if (/pixel limit/i.test((error as Error).message)) throw new ImageRejected('TOO_MANY_PIXELS', `The image has more than ${LIMITS.imagePixels} pixels.`);
    throw new ImageRejected('CORRUPT', 'The image cannot be read.');
  }
  const { width, height, format } = metadata;
  if (!width || !height || format !== SHARP_FORMAT[type.mime]) throw new ImageRejected('CORRUPT', 'The image cannot be read.');
  if (width * height > LIMITS.imagePixels) throw new ImageRejected('TOO_MANY_PIXELS', `The image has more than ${LIMITS.imagePixels} pixels.`);
  return { ...type, width, height };
}

export const mediaPath = (sha256: string, ext: string) => `/media/${sha256}.${ext}`;

interface Claim {
  auction_id: string;
  position: number;
  source_url: string;
  attempts: number;
  facility_id: string;
  unit_id: string;
  guid: string | null;
}

export interface ImagePipelineDeps {
  db: Db;
  blobs: BlobStore;
  fetcher: SafeFetcher;
  notifier: SupportNotifier;
  jobs: JobQueue;
  logger: pino.Logger;
  concurrency?: number;
}

export interface RunResult {
  stored: number;
  retried: number;
  failed: number;
}

export class ImagePipeline {
  private readonly concurrency: number;

  constructor(private readonly deps: ImagePipelineDeps) {
    this.concurrency = deps.concurrency ?? 8;
  }

  /**
   * Fetches the images that are due at `now`, `concurrency` at a time, until none is left or the
   * time budget is spent (then it enqueues its own continuation, so a job never runs for long and
   * a shutdown never waits long).
   */
  async runDue(now: Date = new Date(), budgetMs = 20_000): Promise<RunResult> {
    const started = Date.now();
    const result: RunResult = { stored: 0, retried: 0, failed: 0 };
    // Images of auctions that are no longer open are not fetched.
    await sql`
      update auction_images i set status = 'failed', error = 'AUCTION_NOT_OPEN: the auction was cancelled or closed before the image was fetched.', updated_at = ${now}
      from auctions a
      where a.id = i.auction_id and i.status = 'pending' and i.next_attempt_at <= ${now} and a.status not in ('Pending', 'Active')`.execute(this.deps.db);
    let nextRetry: Date | null = null;
    for (;;) {
      const claims = await this.claim(now, this.concurrency * 4);
      if (claims.length === 0) break;
      let index = 0;
      const worker = async () => {
        while (index < claims.length) {
          const claim = claims[index++]!;
          const outcome = await this.process(claim, now);
          result[outcome.kind]++;
          if (outcome.kind === 'retried' && (nextRetry === null || outcome.at < nextRetry)) nextRetry = outcome.at;
        }
      };
      await Promise.all(Array.from({ length: Math.min(this.concurrency, claims.length) }, worker));
      if (Date.now() - started > budgetMs) {
        await this.deps.jobs.send(JOBS.fetchImages, {});
        break;
      }
    }
    if (nextRetry) await this.deps.jobs.send(JOBS.fetchImages, {}, { startAfter: nextRetry });
    return result;
  }

  private async claim(now: Date, limit: number): Promise<Claim[]> {
    const { rows } = await sql<Claim>`
      with due as (
        select i.auction_id, i.position from auction_images i
        join auctions a on a.id = i.auction_id and a.status in ('Pending', 'Active')
        where i.status = 'pending' and i.next_attempt_at <= ${now} and (i.lease_until is null or i.lease_until < ${now})
        order by i.next_attempt_at, i.auction_id, i.position
        limit ${limit}
        for update of i skip locked
      )
      update auction_images i set lease_until = ${now}::timestamptz + interval '5 minutes', attempts = i.attempts + 1, updated_at = ${now}
      from due, auctions a, facilities f
      where i.auction_id = due.auction_id and i.position = due.position and a.id = i.auction_id and f.id = a.facility_id
      returning i.auction_id, i.position, i.source_url, i.attempts, a.facility_id, a.unit_id, f.guid`.execute(this.deps.db);
    return rows;
  }

  private async process(claim: Claim, now: Date): Promise<{ kind: 'stored' } | { kind: 'failed' } | { kind: 'retried'; at: Date }> {
    const where = { auctionId: claim.auction_id, position: claim.position };
    try {
      const fetched = await this.deps.fetcher.fetch(claim.source_url, { sniff: async (head) => (await sniffImageType(head)) !== null });
      const info = await inspectImage(fetched.body);
      const sha256 = createHash('sha256').update(fetched.body).digest('hex');
      await this.store(sha256, fetched.body, info);
      await this.deps.db
        .updateTable('auction_images')
        .set({ status: 'stored', sha256, error: null, lease_until: null, updated_at: new Date() })
        .where('auction_id', '=', claim.auction_id)
        .where('position', '=', claim.position)
        .execute();
      return { kind: 'stored' };
    } catch (error) {
      const { code, message, retryable } = describeFailure(error);
      if (!(error instanceof FetchError) && !(error instanceof ImageRejected)) this.deps.logger.error({ err: error, image: where }, 'image retrieval failed unexpectedly');
      const text = `${code}: ${message}`;
      if (retryable && claim.attempts < LIMITS.imageAttempts) {
        const at = new Date(now.getTime() + retryDelayMs(IMAGE_RETRY_SECONDS, claim.attempts));
        await this.deps.db
          .updateTable('auction_images')
          .set({ error: text, next_attempt_at: at, lease_until: null, updated_at: new Date() })
          .where('auction_id', '=', claim.auction_id)
          .where('position', '=', claim.position)
          .execute();
        return { kind: 'retried', at };
      }
      const created = await this.deps.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('auction_images')
          .set({ status: 'failed', error: text, lease_until: null, updated_at: new Date() })
          .where('auction_id', '=', claim.auction_id)
          .where('position', '=', claim.position)
          .execute();
        return this.deps.notifier.create(trx, new Date(), [
          {
            kind: 'IMAGE_FETCH_FAILED',
            reason: code,
            message: `Image ${claim.position + 1} of the auction of unit ${claim.unit_id} (facility ${claim.guid ?? claim.facility_id}) could not be retrieved after ${claim.attempts} attempt${claim.attempts === 1 ? '' : 's'}: ${message}`,
            facilityId: claim.facility_id,
            auctionId: claim.auction_id,
            detail: { unitId: claim.unit_id, guid: claim.guid, position: claim.position, sourceUrl: claim.source_url, attempts: claim.attempts, error: code },
          },
        ]);
      });
      this.deps.notifier.logCreated(created);
      return { kind: 'failed' };
    }
  }

  /** Identical bytes are stored once: the key is their SHA-256. */
  private async store(sha256: string, bytes: Buffer, info: ImageInfo): Promise<void> {
    const known = await this.deps.db.selectFrom('media_blobs').select('sha256').where('sha256', '=', sha256).executeTakeFirst();
    if (known) return;
    try {
      await this.deps.blobs.put(`${sha256}.${info.ext}`, bytes, info.mime);
    } catch (error) {
      throw new StorageFailed((error as Error).message);
    }
    await this.deps.db
      .insertInto('media_blobs')
      .values({ sha256, content_type: info.mime, extension: info.ext, bytes: bytes.length, width: info.width, height: info.height })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

class StorageFailed extends Error {
  override name = 'StorageFailed';
}

function describeFailure(error: unknown): { code: string; message: string; retryable: boolean } {
  if (error instanceof FetchError) return { code: error.code, message: error.message, retryable: error.retryable };
  if (error instanceof ImageRejected) return { code: error.code, message: error.message, retryable: false };
  if (error instanceof StorageFailed) return { code: 'STORAGE_FAILED', message: 'The image could not be stored.', retryable: true };
  return { code: 'INTERNAL_ERROR', message: 'The image could not be processed.', retryable: true };
}

// What the auction face's operations work with. createAuctions (index.ts) builds it once; every
// operation takes the parts it needs (a Pick of this), so its dependencies are in its signature.
import type { BlobStore } from '../blobs/index.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/tables.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';
import type { SafeFetcher } from '../net/safe-fetch.ts';
import type { AuctionMetrics } from './metrics.ts';

export interface AuctionDeps {
  db: Db;
  config: Pick<
    Config,
    'auctionRecreateWaitMinutes' | 'imageFetchAllowHosts' | 'supportWebhookUrl' | 'supportWebhookSecret'
  >;
  /** Sends the face's wake-up jobs (in a transaction, with its runner: see wake-ups.ts). */
  queue: Pick<JobQueue, 'send'>;
  logger: Logger;
  /** Where fetched images are kept (filesystem or S3). */
  blobs: BlobStore;
  /** The SSRF-safe fetcher of image URLs. */
  fetcher: SafeFetcher;
  metrics: AuctionMetrics;
}

/** How long after a cancel a full list may create an auction for the unit again. */
export const recreateWaitMs = (config: AuctionDeps['config']) => config.auctionRecreateWaitMinutes * 60_000;

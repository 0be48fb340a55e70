// What the auction face's operations work with. createAuctions (index.ts) builds it once; every
// operation takes the parts it needs (a Pick of this), so its dependencies are in its signature.
import type { BlobStore } from '../blobs/index.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/tables.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';
import type { SafeFetcher } from '../net/safe-fetch.ts';
import type { Support } from '../support/index.ts';
import type { AuctionMetrics } from './metrics.ts';

export interface AuctionDeps {
  db: Db;
  config: Pick<Config, 'auctionRecreateWaitMinutes' | 'imageFetchAllowHosts'>;
  /** Sends the face's wake-up jobs (in a transaction, with its runner: see jobs.ts). */
  queue: Pick<JobQueue, 'send'>;
  logger: Logger;
  /** Where fetched images are kept (filesystem or S3). */
  blobs: BlobStore;
  /** The SSRF-safe fetcher of image URLs. */
  fetcher: SafeFetcher;
  metrics: AuctionMetrics;
  /**
   * The support room's operations the face uses, handed in by the composition root: it raises
   * AUCTION_PENDING, IMAGE_FETCH_FAILED and JOB_FAILED (each worded here), and settles the groups of
   * auctions that left Pending (left-pending.ts).
   */
  support: Pick<Support, 'raise' | 'logRaised' | 'settleAuctions'>;
}

/** How long after a cancel a full list may create an auction for the unit again. */
export const recreateWaitMs = (config: AuctionDeps['config']) => config.auctionRecreateWaitMinutes * 60_000;

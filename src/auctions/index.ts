// The auction face: built once by the composition root (src/services.ts). `createAuctions`
// returns the face's operations (each bound to the parts it works with), its job definitions and
// the parts others look at; routes/ turns HTTP calls into these operations.
//
//   partner (/api/3)   import.ts (full list: plan + apply), cancel.ts, reads.ts
//   support, market    amend.ts (type change, completion), cancel.ts, closing.ts (sale, end),
//                      charity-enrolment.ts, reads.ts
//   background         images.ts, closing.ts — as jobs.ts defines them
//
// Support notifications are the support room's (src/support/): the face raises its kinds through
// the `support` operations the composition root hands it, wording each itself.
import { createBlobStore } from '../blobs/index.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { FactPosition } from '../db/horizon.ts';
import type { Metrics } from '../http/metrics.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';
import { SafeFetcher } from '../net/safe-fetch.ts';
import { amendPending } from './amend.ts';
import { cancelAuction, cancelBySupport } from './cancel.ts';
import { setCharityEnrolment } from './charity-enrolment.ts';
import { closeEnded, reportSale } from './closing.ts';
import type { AuctionDeps } from './deps.ts';
import { type AuctionFactScope, auctionFactsSince, auctionFactsAfter, auctionFactsPast } from './facts.ts';
import { fetchDueImages } from './images.ts';
import { importFullList } from './import.ts';
import { auctionJobs } from './jobs.ts';
import { findStoredImage, readStoredImage } from './media.ts';
import { createAuctionMetrics } from './metrics.ts';
import { LIMITS } from './model.ts';
import { getAuction, getAuctionForPartner, listAllAuctions, listAuctionsForPartner } from './reads.ts';

export type { AuctionDeps } from './deps.ts';
export type { AuctionFactScope, AuctionStatusFact, AuctionStatusPayload } from './facts.ts';
export type { ImportResult } from './import.ts';
export type { AuctionView } from './views.ts';

export interface AuctionsDeps {
  database: Database;
  config: Config;
  logger: Logger;
  jobs: JobQueue;
  metrics: Metrics;
  /** The support room's operations the face raises and settles through (handed in by src/services.ts). */
  support: AuctionDeps['support'];
}

/**
 * The limits the auction routes describe, from the configuration alone: the server registers the
 * routes before the face exists (src/late-bound.ts).
 */
export interface AuctionSettings {
  recreateWaitMinutes: number;
}

export const auctionSettings = (config: Config): AuctionSettings => ({
  recreateWaitMinutes: config.auctionRecreateWaitMinutes,
});

export function createAuctions({ database, config, logger, jobs, metrics, support }: AuctionsDeps) {
  const deps: AuctionDeps = {
    db: database.db,
    config,
    queue: jobs,
    logger,
    blobs: createBlobStore(config),
    fetcher: new SafeFetcher({
      allowHosts: config.imageFetchAllowHosts,
      timeoutMs: config.imageFetchTimeoutMs,
      maxBytes: LIMITS.imageBytes,
      maxRedirects: LIMITS.imageRedirects,
      accept: 'image/jpeg, image/png, image/webp, image/gif;q=0.9, */*;q=0.1',
      userAgent: 'Gatehouse-ImageFetcher/1.0',
    }),
    metrics: createAuctionMetrics(metrics.registry),
    support,
  };
  /** The operation, with the face's parts given. */
  const bind =
    <A extends unknown[], R>(operation: (deps: AuctionDeps, ...args: A) => R) =>
    (...args: A): R =>
      operation(deps, ...args);
  return {
    // A partner's calls (/api/3).
    importFullList: bind(importFullList),
    cancelAuction: bind(cancelAuction),
    listAuctionsForPartner: bind(listAuctionsForPartner),
    getAuctionForPartner: bind(getAuctionForPartner),
    // Support and the marketplace (/admin, the console).
    listAllAuctions: bind(listAllAuctions),
    getAuction: bind(getAuction),
    reportSale: bind(reportSale),
    amendPending: bind(amendPending),
    cancelBySupport: bind(cancelBySupport),
    setCharityEnrolment: bind(setCharityEnrolment),
    // Stored images (/media).
    findStoredImage: bind(findStoredImage),
    readStoredImage: bind(readStoredImage),
    // What the jobs run (also run by tests at a chosen time).
    closeEnded: bind(closeEnded),
    fetchDueImages: bind(fetchDueImages),
    /** Its published facts (auction.status): history recorded after < txid <= upTo, for push. */
    facts: {
      factsSince: (after: number, upTo: number, scope: AuctionFactScope, limit: number) =>
        auctionFactsSince(deps.db, after, upTo, scope, limit),
      factsAfter: (positions: readonly FactPosition[]) => auctionFactsAfter(deps.db, positions),
      past: auctionFactsPast,
    },
    blobs: deps.blobs,
    metrics: deps.metrics,
    /** The face's background jobs, worked by the server's queue. */
    jobs: auctionJobs(deps, { fetchDueImages: () => fetchDueImages(deps), closeEnded: () => closeEnded(deps) }),
  };
}

export type Auctions = ReturnType<typeof createAuctions>;

// The auction face: built once by the composition root (src/services.ts), shared by its routes and its jobs.
import { Counter } from 'prom-client';
import { createBlobStore, type BlobStore } from '../blobs/index.ts';
import { SafeFetcher } from '../net/safe-fetch.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { JobDefinition, JobQueue } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../http/metrics.ts';
import { auctionJobs } from './jobs.ts';
import { ImagePipeline } from './images.ts';
import { LIMITS } from './model.ts';
import { SupportNotifier } from './notifications.ts';
import type { Db } from '../db/tables.ts';
import { AuctionService } from './service.ts';

export interface AuctionsDeps {
  database: Database;
  config: Config;
  logger: Logger;
  jobs: JobQueue;
  metrics: Metrics;
}

export interface Auctions {
  db: Db;
  service: AuctionService;
  images: ImagePipeline;
  notifier: SupportNotifier;
  blobs: BlobStore;
  fetcher: SafeFetcher;
  metrics: { imports: Counter<'outcome'>; images: Counter<'result'> };
  /** The face's background jobs, worked by the server's queue. */
  jobs: JobDefinition<any>[];
}

export function createAuctions({ database, config, logger, jobs, metrics: serviceMetrics }: AuctionsDeps): Auctions {
  const db = database.db;
  const notifier = new SupportNotifier({ db, logger, jobs, webhookUrl: config.supportWebhookUrl });
  const blobs = createBlobStore(config);
  const fetcher = new SafeFetcher({
    allowHosts: config.imageFetchAllowHosts,
    timeoutMs: config.imageFetchTimeoutMs,
    maxBytes: LIMITS.imageBytes,
    maxRedirects: LIMITS.imageRedirects,
    accept: 'image/jpeg, image/png, image/webp, image/gif;q=0.9, */*;q=0.1',
    userAgent: 'Gatehouse-ImageFetcher/1.0',
  });
  const registers = [serviceMetrics.registry];
  const metrics = {
    imports: new Counter({ name: 'gatehouse_auction_import_units_total', help: 'Units of applied full lists, by outcome.', labelNames: ['outcome'] as const, registers }),
    images: new Counter({ name: 'gatehouse_auction_images_total', help: 'Image retrieval attempts, by result.', labelNames: ['result'] as const, registers }),
  };
  const parts = {
    db,
    service: new AuctionService({ db, config, jobs, notifier, logger }),
    images: new ImagePipeline({ db, blobs, fetcher, notifier, jobs, logger }),
    notifier,
    blobs,
    fetcher,
    metrics,
  };
  return { ...parts, jobs: auctionJobs({ ...parts, logger, queue: jobs }) };
}

// The auction face's parts, built once per Services and shared by its routes and its jobs.
import { Counter } from 'prom-client';
import { createBlobStore, type BlobStore } from '../blobs/index.ts';
import { SafeFetcher } from '../net/safe-fetch.ts';
import type { Services } from '../services.ts';
import { ImagePipeline } from './images.ts';
import { LIMITS } from './model.ts';
import { SupportNotifier } from './notifications.ts';
import type { Db } from '../db/tables.ts';
import { AuctionService } from './service.ts';

export interface AuctionFace {
  db: Db;
  service: AuctionService;
  images: ImagePipeline;
  notifier: SupportNotifier;
  blobs: BlobStore;
  fetcher: SafeFetcher;
  metrics: { imports: Counter<'outcome'>; images: Counter<'result'> };
}

const faces = new WeakMap<Services, AuctionFace>();

export function auctionFace(services: Services): AuctionFace {
  const existing = faces.get(services);
  if (existing) return existing;
  const { config, logger } = services;
  const db = services.database.db;
  // services.jobs is assigned after the job definitions are built: read it when needed.
  const jobs = () => services.jobs;
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
  const registry = services.metrics.registry;
  const metrics = {
    imports: (registry.getSingleMetric('gatehouse_auction_import_units_total') as Counter<'outcome'> | undefined) ??
      new Counter({ name: 'gatehouse_auction_import_units_total', help: 'Units of applied full lists, by outcome.', labelNames: ['outcome'] as const, registers: [registry] }),
    images: (registry.getSingleMetric('gatehouse_auction_images_total') as Counter<'result'> | undefined) ??
      new Counter({ name: 'gatehouse_auction_images_total', help: 'Image retrieval attempts, by result.', labelNames: ['result'] as const, registers: [registry] }),
  };
  const face: AuctionFace = {
    db,
    service: new AuctionService({ db, config, jobs, notifier, logger }),
    images: new ImagePipeline({ db, blobs, fetcher, notifier, jobs, logger }),
    notifier,
    blobs,
    fetcher,
    metrics,
  };
  faces.set(services, face);
  return face;
}

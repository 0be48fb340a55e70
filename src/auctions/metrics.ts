// The auction face's metrics, registered once on the service's registry.
import { Counter, type Registry } from 'prom-client';

export interface AuctionMetrics {
  /** Units of applied full lists, by outcome (created, pending, unchanged, deferred, removed). */
  imports: Counter<'outcome'>;
  /** Image retrieval attempts, by result (stored, retried, failed). */
  images: Counter<'result'>;
}

export function createAuctionMetrics(registry: Registry): AuctionMetrics {
  const registers = [registry];
  return {
    imports: new Counter({
      name: 'gatehouse_auction_import_units_total',
      help: 'Units of applied full lists, by outcome.',
      labelNames: ['outcome'] as const,
      registers,
    }),
    images: new Counter({
      name: 'gatehouse_auction_images_total',
      help: 'Image retrieval attempts, by result.',
      labelNames: ['result'] as const,
      registers,
    }),
  };
}

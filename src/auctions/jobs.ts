// Background jobs of the auctions face.
import type { JobDefinition } from '../jobs/queue.ts';
import type { Services } from '../services.ts';

export function auctionJobs(_services: Services): JobDefinition<any>[] {
  return [];
}

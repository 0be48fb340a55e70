// The one list of background jobs: each face contributes its definitions here.
import { auctionJobs } from '../auctions/jobs.ts';
import { eventJobs } from '../events/jobs.ts';
import { accessControlJobs } from '../access-control/jobs.ts';
import type { Services } from '../services.ts';
import type { JobDefinition } from './queue.ts';

export function jobDefinitions(services: Services): JobDefinition<any>[] {
  return [...eventJobs(services), ...auctionJobs(services), ...accessControlJobs(services)];
}

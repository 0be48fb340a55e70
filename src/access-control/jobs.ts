// Background jobs of the access-control face.
import type { JobDefinition } from '../jobs/queue.ts';
import type { Services } from '../services.ts';

export function accessControlJobs(_services: Services): JobDefinition<any>[] {
  return [];
}

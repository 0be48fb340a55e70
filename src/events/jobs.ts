// Background jobs of the events face.
import type { JobDefinition } from '../jobs/queue.ts';
import type { Services } from '../services.ts';

export function eventJobs(_services: Services): JobDefinition<any>[] {
  return [];
}

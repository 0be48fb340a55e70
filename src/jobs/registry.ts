// The one list of background jobs: each face contributes its definitions here.
import type { Services } from '../services.ts';
import type { JobDefinition } from './queue.ts';

export function jobDefinitions(_services: Services): JobDefinition<any>[] {
  return [];
}

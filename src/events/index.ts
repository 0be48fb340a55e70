// The access-event face: built once by the composition root (src/services.ts).
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { JobDefinition } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';
import { eventJobs } from './jobs.ts';
import { EventStore, loadCursorKey } from './store.ts';

export interface EventsDeps {
  database: Database;
  config: Pick<Config, 'eventRetentionDays'>;
  logger: Logger;
}

export interface Events {
  /** Reads: pages, slices and exports over the committed events. */
  store: EventStore;
  jobs: JobDefinition<any>[];
}

export async function createEvents(deps: EventsDeps): Promise<Events> {
  // The cursor key is read (or made) once: cursors stay valid across restarts and instances.
  const store = new EventStore(deps.database.pool, await loadCursorKey(deps.database.pool), deps.config.eventRetentionDays);
  return { store, jobs: eventJobs(deps) };
}

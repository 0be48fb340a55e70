// The access-event face: built once by the composition root (src/services.ts). Its anatomy: the
// routes by resource under routes/ (v3.0 pages, CSV export, live stream and types; the legacy 2.0
// and 1.0 routes), the operations (ingest.ts — a controller's report, judged, stored and counted —,
// reads.ts, export.ts, stream.ts), the SQL (store.ts
// and ingest.ts — raw pg, for speed), the event-stored signal (signals.ts), pure rules (judge.ts,
// filters.ts, query.ts, cursor.ts, tail.ts, sse.ts, csv.ts, time.ts, catalogue.ts), tables.ts and
// jobs.ts.
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { JobDefinition } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';
import type { Metrics } from '../http/metrics.ts';
import { createEventFacts, type EventFacts } from './facts.ts';
import { type BatchUpkeep, type GatewayIdentity, ingest, type IngestAnswer } from './ingest.ts';
import { eventJobs } from './jobs.ts';
import { createEventMetrics, type EventMetrics } from './metrics.ts';
import { Partitions } from './partitions.ts';
import { EventSignals } from './signals.ts';
import { EventStore, loadCursorKey } from './store.ts';
import { type CredentialWatch, LiveStreams } from './stream.ts';

export interface EventsDeps {
  database: Database;
  config: Pick<Config, 'eventRetentionDays' | 'databaseUrl' | 'eventStreamsPerCredential'>;
  logger: Logger;
  metrics: Metrics;
  /** What other faces keep in step with each batch, in its one statement (the composition root hands it in). */
  upkeep: readonly BatchUpkeep[];
  clock: Clock;
  /** Whether the credentials of open streams are still in force (auth's CredentialStatus). */
  credentials: Pick<CredentialWatch, 'revokedAmong'>;
}

/**
 * The limits the events' routes describe, from the configuration alone: the server registers the
 * routes before the face exists (src/late-bound.ts).
 */
export interface EventSettings {
  retentionDays: number;
  streamsPerCredential: number;
}

export const eventSettings = (config: Config): EventSettings => ({
  retentionDays: config.eventRetentionDays,
  streamsPerCredential: config.eventStreamsPerCredential,
});

export interface Events {
  /** A controller's report: judged, stored (with the other faces' parts, in one statement), counted; resolves after commit. */
  ingest(gateway: GatewayIdentity, reported: readonly unknown[], now: number): Promise<IngestAnswer>;
  /** The monthly partitions of the events (made ahead, on demand, dropped past retention). */
  partitions: Partitions;
  /** Reads: pages, slices and exports over the committed events. */
  store: EventStore;
  /** Its published facts (gateway.events): an account's events in slices of the walk, for push. */
  facts: EventFacts;
  metrics: EventMetrics;
  /** "Events were stored" (signals.ts): wakes the live stream and the push face, across instances on PostgreSQL. */
  signals: EventSignals;
  jobs: JobDefinition[];
  /** The open live streams (routes/stream.ts): ended by beginClosing at shutdown. */
  streams: LiveStreams;
  /** Ends the live streams, closes the notification listener. */
  close(): Promise<void>;
}

export async function createEvents(deps: EventsDeps): Promise<Events> {
  // The gauge of open streams reads them when scraped (they are made below, with the store).
  let openStreams = () => 0;
  const metrics = createEventMetrics(deps.metrics.registry, () => openStreams());
  // The cursor key is read (or made) once: cursors stay valid across restarts and instances.
  const cursorKey = await loadCursorKey(deps.database.pool);
  const store = new EventStore(
    deps.database.tailPool,
    cursorKey,
    deps.config.eventRetentionDays,
    (horizon) => {
      metrics.horizonWaits.inc({ outcome: horizon.caughtUp ? 'caught_up' : 'timed_out' });
      metrics.horizonWaitSeconds.inc(horizon.waitedMs / 1000);
    },
    (read) => metrics.tailReads.inc({ read }),
    deps.database.tailPool,
    deps.database.kind === 'postgres',
  );
  const signals = new EventSignals(deps.logger, deps.database.kind === 'postgres' ? deps.config.databaseUrl : null);
  await signals.listen();
  const streams = new LiveStreams(
    store,
    signals,
    deps.logger,
    { perCredential: deps.config.eventStreamsPerCredential },
    {
      clock: deps.clock,
      revokedAmong: (credentials) => deps.credentials.revokedAmong(credentials),
      ended: (reason) => metrics.streamEnds.inc({ reason: reason.toLowerCase() }),
    },
  );
  const partitions = new Partitions(deps.database.pool);
  const ingestDeps = {
    db: deps.database.db,
    prepared: deps.database.prepared,
    partitions,
    signals,
    metrics,
    retentionDays: deps.config.eventRetentionDays,
    upkeep: deps.upkeep,
  };
  openStreams = () => streams.open;
  const close = async () => {
    await streams.close();
    await signals.close();
  };
  return {
    ingest: (gateway, reported, now) => ingest(ingestDeps, gateway, reported, now),
    partitions,
    store,
    // The lanes' slices are tails too: read through the tails' pool.
    facts: createEventFacts({ pool: deps.database.tailPool, db: deps.database.db }, cursorKey, () => store.cutoff()),
    metrics,
    signals,
    streams,
    jobs: eventJobs({ partitions, config: deps.config, logger: deps.logger }),
    close,
  };
}

// The catalogue of event types, for faces that name them (facility status: an active alarm's type).
export { EVENT_TYPE_NUMBERS, eventTypeInfo } from './catalogue.ts';
export type { AcceptedEvent, IngestWarning } from './judge.ts';
export type { DeliveredEvent, EventFacts, EventPosition, EventSelection, EventSlice, NextSlice } from './facts.ts';
export type { BatchStatementPart, BatchUpkeep, GatewayIdentity, IngestAnswer, StoredBatch } from './ingest.ts';
export { STORED } from './ingest.ts';
export { COMMAND_RECEIVED, EVENT_TYPE_LIST } from './catalogue.ts';
export { CLOCK_AHEAD_TOLERANCE_MS, FIELD_LIMITS, MAX_BATCH_EVENTS, MAX_INGEST_BODY_BYTES } from './limits.ts';

// Counters of the events face, and the gauge of its open live streams.
import { Counter, Gauge, type Registry } from 'prom-client';

export interface EventMetrics {
  ingested: Counter<'outcome'>;
  exportedRows: Counter;
  horizonWaits: Counter<'outcome'>;
  horizonWaitSeconds: Counter;
  openStreams: Gauge;
  tailReads: Counter<'read'>;
  streamEnds: Counter<'reason'>;
}

/**
 * The face's counters, registered in the service's registry (built once, by createEvents);
 * `openStreams` tells the gauge how many live streams are open when it is scraped.
 */
export function createEventMetrics(registry: Registry, openStreams: () => number = () => 0): EventMetrics {
  return {
    ingested: new Counter({
      name: 'gatehouse_gateway_events_ingested_total',
      help: 'Events reported by gateway controllers, by outcome (accepted, duplicate, rejected, clock_ahead).',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    exportedRows: new Counter({
      name: 'gatehouse_gateway_event_export_rows_total',
      help: 'Rows read from the database for CSV exports.',
      registers: [registry],
    }),
    // A read waits when its account has events committed above the horizon (horizon.ts): a few
    // milliseconds normally; timed_out means a long transaction in this database held it back.
    horizonWaits: new Counter({
      name: 'gatehouse_gateway_events_horizon_waits_total',
      help: 'Event reads that waited for the commit horizon, by outcome (caught_up, timed_out: answered with what was safe).',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    horizonWaitSeconds: new Counter({
      name: 'gatehouse_gateway_events_horizon_wait_seconds_total',
      help: 'Time event reads spent waiting for the commit horizon.',
      registers: [registry],
    }),
    // One wake-up of an account's caught-up streams costs one `shared` read, however many streams
    // and filters (store.ts); `own` reads are a stream's backlog (Last-Event-ID, startDate, a burst).
    tailReads: new Counter({
      name: 'gatehouse_gateway_event_tail_reads_total',
      help: 'Reads of event rows by live streams: shared (one per wake-up of an account) or own (a backlog).',
      labelNames: ['read'] as const,
      registers: [registry],
    }),
    streamEnds: new Counter({
      name: 'gatehouse_gateway_event_streams_ended_total',
      help: 'Live event streams ended by the service because of their credential: credential_revoked, token_expired.',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    openStreams: new Gauge({
      name: 'gatehouse_gateway_event_streams_open',
      help: 'Live event streams (…/stream) open on this instance.',
      registers: [registry],
      collect() {
        this.set(openStreams());
      },
    }),
  };
}

// Counters of the events face.
import { Counter, type Registry } from 'prom-client';

export interface EventMetrics {
  ingested: Counter<'outcome'>;
  exportedRows: Counter;
}

/** The face's counters, registered in the service's registry (built once, by createEvents). */
export function createEventMetrics(registry: Registry): EventMetrics {
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
  };
}

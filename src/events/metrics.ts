// Counters of the events face, registered once per metrics registry.
import { Counter, type Registry } from 'prom-client';

export interface EventMetrics {
  ingested: Counter<'outcome'>;
  exportedRows: Counter;
}

const byRegistry = new WeakMap<Registry, EventMetrics>();

export function eventMetrics(registry: Registry): EventMetrics {
  let metrics = byRegistry.get(registry);
  if (!metrics) {
    metrics = {
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
    byRegistry.set(registry, metrics);
  }
  return metrics;
}

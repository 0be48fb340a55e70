// Metrics of the push face.
import { Histogram, type Registry } from 'prom-client';

export interface PushMetrics {
  attempts: Histogram<'outcome'>;
}

export function createPushMetrics(registry: Registry): PushMetrics {
  return {
    attempts: new Histogram({
      name: 'gatehouse_webhook_attempt_seconds',
      help: 'Webhook delivery attempts and how long the receiver took, by outcome (delivered, failed).',
      labelNames: ['outcome'] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
  };
}

// Metrics of the push face.
import { Gauge, Histogram, type Registry } from 'prom-client';

export interface PushMetrics {
  attempts: Histogram<'outcome'>;
  /** From a delivery's creation to the receiver's acceptance, retries included. */
  delivered: Histogram;
}

/** `failingLanes`: how many enabled subscriptions are failing now (the lanes this instance knows). */
export function createPushMetrics(registry: Registry, failingLanes: () => number): PushMetrics {
  new Gauge({
    name: 'gatehouse_webhook_subscriptions_failing',
    help: 'Enabled webhook subscriptions whose receiver is failing (their deliveries are retried; after WEBHOOK_DISABLE_AFTER_SECONDS the subscription is disabled).',
    registers: [registry],
    // Every instance knows every lane (the sweep reads them all): under WORKERS, the largest count.
    aggregator: 'max',
    collect() {
      this.set(failingLanes());
    },
  });
  return {
    attempts: new Histogram({
      name: 'gatehouse_webhook_attempt_seconds',
      help: 'Webhook delivery attempts and how long the receiver took, by outcome (delivered, failed).',
      labelNames: ['outcome'] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    delivered: new Histogram({
      name: 'gatehouse_webhook_delivery_seconds',
      help: 'From a webhook delivery’s creation (its lane found the fact) to the receiver’s acceptance, retries included.',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600],
      registers: [registry],
    }),
  };
}

// Prometheus metrics: process defaults plus one histogram of HTTP requests by route.
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { App as FastifyInstance } from './app-type.ts';

export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration = new Histogram({
    name: 'gatehouse_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'gatehouse_' });
  }
}

export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    metrics.httpDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
}

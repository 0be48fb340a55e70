// /metrics under WORKERS: the figures of every worker, summed, whichever worker takes the scrape.
// The worker that takes it asks the primary over the cluster's IPC channel; the primary asks every
// worker for its registry (prom-client's AggregatorRegistry: counters and histograms summed, each
// metric's own `aggregator` otherwise) and answers with the aggregate. One process (no WORKERS)
// serves its own registry.
import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import { AppError } from '../errors.ts';

/** A worker asks the primary for every worker's metrics, and the primary answers with the same type. */
const CLUSTER_METRICS = 'gatehouse:cluster-metrics';
/** prom-client's primary gives up on a worker's registry after 5 s; the asking worker a little after. */
const ANSWER_WITHIN_MS = 6_000;

interface MetricsMessage {
  type: typeof CLUSTER_METRICS;
  id: number;
  text?: string;
  error?: string;
}

const isMetricsMessage = (message: unknown): message is MetricsMessage =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === CLUSTER_METRICS;

/** The Prometheus text /metrics serves: this process's registry, or in a worker every worker's, summed. */
export function metricsSource(registry: Registry): () => Promise<string> {
  if (!cluster.isWorker) return () => registry.metrics();
  // The worker answers the primary's requests with this registry (prom-client's listener).
  AggregatorRegistry.setRegistries([registry]);
  new AggregatorRegistry();
  const waiting = new Map<number, (message: MetricsMessage) => void>();
  let next = 0;
  process.on('message', (message: unknown) => {
    if (isMetricsMessage(message)) waiting.get(message.id)?.(message);
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = next++;
      const unavailable = (why: string) =>
        new AppError(503, 'METRICS_UNAVAILABLE', `The workers' metrics could not be gathered (${why}); retry.`, [], {
          'retry-after': '5',
        });
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(unavailable('no answer in time'));
      }, ANSWER_WITHIN_MS);
      waiting.set(id, (message) => {
        clearTimeout(timer);
        waiting.delete(id);
        if (message.text !== undefined) resolve(message.text);
        else reject(unavailable(message.error ?? 'no answer'));
      });
      process.send?.({ type: CLUSTER_METRICS, id } satisfies MetricsMessage);
    });
}

/** The primary: answers a worker's request with every worker's metrics, aggregated. */
export function answerClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: unknown) => {
    if (!isMetricsMessage(message)) return;
    const answer = (fields: Pick<MetricsMessage, 'text' | 'error'>) => {
      if (worker.isConnected()) worker.send({ type: CLUSTER_METRICS, id: message.id, ...fields });
    };
    aggregator.clusterMetrics().then(
      (text) => answer({ text }),
      (error: Error) => answer({ error: error.message }),
    );
  });
}

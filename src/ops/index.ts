// The operations face: liveness and readiness (public, for probes), metrics (an operator's token),
// and GET /, which leads to the API reference. It owns no parts: it reads the service's readiness
// and the metrics' text, which is all its routes receive.

export interface Ops {
  /** Whether each dependency can serve now (the composition root's check). */
  readiness(): Promise<{ database: boolean; migrations: boolean; jobs: boolean | 'starting'; redis: string }>;
  /** Whether the instance is shutting down (SIGTERM, src/server.ts): it finishes its work and takes no more. */
  draining(): boolean;
  /** The Prometheus text: this process's metrics, or every worker's summed (src/ops/cluster-metrics.ts). */
  metrics(): Promise<string>;
}

export { answerClusterMetrics, metricsSource } from './cluster-metrics.ts';

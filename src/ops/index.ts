// The operations face: liveness and readiness (public, for probes), metrics (an operator's token),
// and GET /, which leads to the API reference. It owns no parts: it reads the service's readiness
// and the metrics registry, which is all its routes receive.
import type { Registry } from 'prom-client';

export interface Ops {
  /** Whether each dependency can serve now (the composition root's check). */
  readiness(): Promise<{ database: boolean; migrations: boolean; jobs: boolean; redis: string }>;
  registry: Registry;
}

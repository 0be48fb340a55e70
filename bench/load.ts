// A small closed-loop HTTP load generator: `connections` requests in flight for `seconds`,
// reporting requests/s and latency percentiles. Used by the benchmarks.
import { Pool } from 'undici';

export interface LoadResult {
  requests: number;
  errors: number;
  perSecond: number;
  p50: number;
  p99: number;
}

export async function load(
  url: string,
  options: {
    connections: number;
    seconds: number;
    method?: 'GET' | 'POST';
    headers?: Record<string, string>;
    body?: () => string;
    expect?: number;
  },
): Promise<LoadResult> {
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: options.connections, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + options.seconds * 1000;
  const worker = async () => {
    while (performance.now() < deadline) {
      const started = performance.now();
      try {
        const response = await pool.request({
          path: target.pathname + target.search,
          method: options.method ?? 'GET',
          headers: options.headers,
          body: options.body?.(),
        });
        await response.body.dump();
        if (response.statusCode !== (options.expect ?? 200)) errors++;
      } catch {
        errors++;
      }
      latencies.push(performance.now() - started);
    }
  };
  const began = performance.now();
  await Promise.all(Array.from({ length: options.connections }, worker));
  const elapsed = (performance.now() - began) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const pick = (q: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! * 10) / 10;
  return {
    requests: latencies.length,
    errors,
    perSecond: Math.round(latencies.length / elapsed),
    p50: pick(0.5),
    p99: pick(0.99),
  };
}

export const machine = async () => {
  const os = await import('node:os');
  return `${os.cpus().length} × ${os.cpus()[0]?.model}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`;
};

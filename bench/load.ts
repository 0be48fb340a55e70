// A small closed-loop HTTP load generator: `connections` requests in flight for `seconds`,
// reporting requests/s and latency percentiles; and the CPU meter of a server and its database's
// backends. Used by the benchmarks.
import fs from 'node:fs';
import { type Dispatcher, Pool, request } from 'undici';

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

/** CPU milliseconds (user + system, every thread) a process has used so far, from /proc (USER_HZ = 100); throws when it is gone. */
export function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Samples the CPU time of the server process and of the database's backends (PostgreSQL: the
 * processes serving this database) until stopped: CPU per event is steadier than events/s on a
 * machine shared with other work. A server that exited meanwhile reads NaN.
 */
export function cpuMeter(serverPid: number, backendPids: (() => Promise<number[]>) | null) {
  const server0 = cpuMs(serverPid);
  const backends = new Map<number, { first: number; last: number }>();
  const sample = async () => {
    for (const pid of backendPids ? await backendPids() : []) {
      try {
        const now = cpuMs(pid);
        const seen = backends.get(pid);
        if (seen) seen.last = now;
        else backends.set(pid, { first: now, last: now });
      } catch {
        /* the backend ended */
      }
    }
  };
  const started = sample();
  const timer = setInterval(() => void sample().catch(() => {}), 250);
  return async () => {
    await started;
    clearInterval(timer);
    await sample();
    let database = 0;
    for (const { first, last } of backends.values()) database += last - first;
    const server = fs.existsSync(`/proc/${serverPid}/stat`) ? cpuMs(serverPid) - server0 : Number.NaN;
    return { server, database };
  };
}

/** Runs `work` over `items`, `width` at a time. */
export async function inParallel<T, R>(
  items: T[],
  width: number,
  work: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i]!, i);
    }),
  );
  return results;
}

/** A JSON call to a benchmark's server: the parsed answer (null when empty); a status of 300 or more throws. */
export async function call(
  url: string,
  init: { method?: string; token?: string; body?: unknown; form?: Record<string, string> },
) {
  const response = await request(url, {
    method: (init.method ?? 'GET') as 'GET',
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      'content-type': init.form ? 'application/x-www-form-urlencoded' : 'application/json',
    },
    body: init.form ? new URLSearchParams(init.form).toString() : init.body ? JSON.stringify(init.body) : undefined,
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`${url}: ${response.statusCode} ${text}`);
  return text ? JSON.parse(text) : null;
}

/**
 * One controller's batch to `POST /gateway/v1/events` on a benchmark's connection pool: whether every
 * event of it was accepted (a refusal, a partial acceptance or a network failure is `false`).
 */
export async function postEvents(
  baseUrl: string,
  token: string,
  dispatcher: Dispatcher,
  events: Record<string, unknown>[],
): Promise<boolean> {
  try {
    const response = await request(`${baseUrl}/gateway/v1/events`, {
      dispatcher,
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ events }),
    });
    const answer = (await response.body.json()) as { accepted?: number };
    return response.statusCode === 200 && answer.accepted === events.length;
  } catch {
    return false;
  }
}

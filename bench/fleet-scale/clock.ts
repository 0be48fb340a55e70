// Time and figures shared by the fleet-scale processes. Every process stamps with `now()`: epoch
// milliseconds at sub-millisecond resolution (performance.timeOrigin + performance.now()), so a
// commit stamped in a controller process and an arrival stamped in the stream process compare.

export const now = () => performance.timeOrigin + performance.now();

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** The q-quantile (0–1) of the values (sorted here, in a copy); NaN when there are none. */
export function quantile(values: ArrayLike<number>, q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export interface Spread {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

export function spread(values: ArrayLike<number>): Spread {
  if (values.length === 0) return { n: 0, p50: Number.NaN, p99: Number.NaN, max: Number.NaN };
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { n: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1]! };
}

/** A Retry-After header's wait in ms (seconds form), else `fallbackMs`. */
export function retryAfterMs(header: string | string[] | undefined, fallbackMs = 1000): number {
  const seconds = Number(Array.isArray(header) ? header[0] : header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : fallbackMs;
}

/** Counts by key (HTTP status, delivery type…). */
export type Tally = Record<string, number>;

export const count = (tally: Tally, key: string | number, n = 1) => {
  tally[key] = (tally[key] ?? 0) + n;
};

export function addTallies(into: Tally, from: Tally): Tally {
  for (const [key, n] of Object.entries(from)) count(into, key, n);
  return into;
}

/** The key an event carries in `details`: the sending process (`source`) and its sequence number. */
export const eventKey = (source: number, seq: number) => `e${source}-${seq}`;

// When a failed outbound call (an image fetch, a webhook POST) is tried again: one function for
// every retry schedule of the service, the schedules themselves declared by their owners as data.

/**
 * A back-off schedule: a table of waits (seconds after the 1st, 2nd, … failed attempt; the last
 * step repeats), or a wait doubling from `baseMs` up to `capMs`, times a random factor in [0.5, 1)
 * ("equal jitter"), so that receivers that fail together are not retried together.
 */
export type RetrySchedule =
  | { readonly stepsSeconds: readonly number[] }
  | { readonly baseMs: number; readonly capMs: number; readonly jitter: 'equal' };

/** The wait after failed attempt number `attempt` (1-based), in milliseconds. */
export function retryDelayMs(schedule: RetrySchedule, attempt: number, random: number = Math.random()): number {
  if ('stepsSeconds' in schedule) {
    const steps = schedule.stepsSeconds;
    const index = Math.min(Math.max(attempt, 1), steps.length) - 1;
    return steps[index]! * 1000;
  }
  const ceiling = Math.min(schedule.baseMs * 2 ** Math.max(0, attempt - 1), schedule.capMs);
  return Math.round(ceiling * (0.5 + random / 2));
}

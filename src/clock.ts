// The time as the service's parts read it, so that a test can move it instead of waiting.
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

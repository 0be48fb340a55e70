// The time as the service's parts read it, so that a test can move it instead of waiting.
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * Ticks at the multiples of `everyMs()` on the wall clock, shared: whoever waits for the next tick
 * wakes with every other waiter at once. The live streams and the webhook lanes gather what commits
 * between two ticks into one read, read together (issue 25).
 */
export class GatheringTicks {
  private upcoming: { at: Promise<void>; timer: NodeJS.Timeout; resolve: () => void } | null = null;

  constructor(private readonly everyMs: () => number) {}

  /** The next tick (the same promise for every caller until it comes). */
  next(): Promise<void> {
    if (!this.upcoming) {
      const everyMs = this.everyMs();
      let resolve = () => {};
      const at = new Promise<void>((r) => {
        resolve = r;
      });
      const timer = setTimeout(
        () => {
          this.upcoming = null;
          resolve();
        },
        everyMs - (Date.now() % everyMs),
      );
      timer.unref();
      this.upcoming = { at, timer, resolve };
    }
    return this.upcoming.at;
  }

  /** Wakes the waiters of the upcoming tick now (a close). */
  wakeAll(): void {
    if (!this.upcoming) return;
    clearTimeout(this.upcoming.timer);
    this.upcoming.resolve();
    this.upcoming = null;
  }
}

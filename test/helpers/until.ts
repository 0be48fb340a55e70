// Waiting for a condition in a test: a state reached, not a duration (the deadline only ends a hung test).

/** Polls `probe` every `everyMs` until it answers something truthy, which it returns; throws after `ms`. */
export async function until<T>(probe: () => T | Promise<T>, ms = 10_000, everyMs = 50): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms: ${probe.toString().slice(0, 200)}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

// Retry schedules with back-off, as data: the delay after the n-th failed attempt.

/** Image retrieval: 5 attempts in all, over about 45 minutes. */
export const IMAGE_RETRY_SECONDS = [30, 120, 600, 1800] as const;
/** Support webhook: 8 attempts in all, over about 2 hours. */
export const WEBHOOK_RETRY_SECONDS = [10, 30, 120, 300, 900, 1800, 3600] as const;

/** The delay after failed attempt number `attempt` (1-based); the last step repeats. */
export function retryDelayMs(schedule: readonly number[], attempt: number): number {
  const index = Math.min(Math.max(attempt, 1), schedule.length) - 1;
  return schedule[index]! * 1000;
}

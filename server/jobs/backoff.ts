import type { Backoff } from "./kind";

/**
 * The wait before attempt `failedAttempts + 1`: exponential, capped, with "equal jitter" (half fixed,
 * half random) so that jobs which failed together, say while the graph database was down, do not all
 * come back in the same second.
 */
export function retryDelayMs(failedAttempts: number, { baseMs, maxMs }: Backoff, random: () => number = Math.random): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** Math.max(0, failedAttempts - 1));
  return Math.round(exponential / 2 + random() * (exponential / 2));
}

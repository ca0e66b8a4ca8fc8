/** How retries after transient failures are spaced. */
export interface BackoffOptions {
  /** The first retry waits between half of this and all of it, ms. */
  baseMs: number;
  /** No retry waits longer than this, ms. */
  maxMs: number;
}

/** 2 s doubling, at most 5 min: retries 1, 2, 3 wait 1–2 s, 2–4 s, 4–8 s. */
export const DEFAULT_BACKOFF: Readonly<BackoffOptions> = { baseMs: 2_000, maxMs: 300_000 };

/** The ceiling of retry `retry` (1 for the first): `baseMs · 2^(retry−1)`, at most `maxMs`. */
export function backoffCeiling(retry: number, options: BackoffOptions): number {
  const exponent = Math.max(0, retry - 1);
  // 2^exponent overflows to Infinity long before it matters; the cap keeps it finite.
  return Math.min(options.maxMs, options.baseMs * 2 ** exponent);
}

/**
 * The wait before retry `retry` (1 for the first): exponential backoff with equal jitter, a
 * random point between half the ceiling and the ceiling ({@link backoffCeiling}), so agents
 * that failed together do not all come back at once, and no retry comes back at once.
 * `random` returns a number in [0, 1) (injectable for tests).
 */
export function backoffDelay(
  retry: number,
  options: BackoffOptions,
  random: () => number = Math.random,
): number {
  const ceiling = backoffCeiling(retry, options);
  const point = Math.min(Math.max(random(), 0), 1);
  return Math.round(ceiling / 2 + (point * ceiling) / 2);
}

/** The range of each of the first `retries` waits, ms: for help texts and docs. */
export function backoffSchedule(
  retries: number,
  options: BackoffOptions,
): Array<{ retry: number; minMs: number; maxMs: number }> {
  return Array.from({ length: Math.max(0, retries) }, (_, index) => {
    const ceiling = backoffCeiling(index + 1, options);
    return { retry: index + 1, minMs: Math.round(ceiling / 2), maxMs: ceiling };
  });
}

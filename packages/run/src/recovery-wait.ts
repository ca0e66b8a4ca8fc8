import { MAX_TIMER_DELAY_MS } from "@cursor-wrap/monitor";

/** Shows the time left while the run waits between two attempts (a countdown on a terminal). */
export interface WaitDisplay {
  /** The wait starts: `message` says why, `waitMs` how long. */
  start(message: string, waitMs: number): void;
  /** The wait is over (or cut short): erase what was shown. */
  stop(): void;
}

/** How a wait between attempts ended. */
export interface WaitOutcome {
  waitedMs: number;
  /** Cut short by `signal` (Ctrl+C, a signal, stdout failing). */
  cancelled: boolean;
}

/**
 * Wait `ms` before the next attempt, unless `signal` aborts first; a wait longer than one timer
 * can hold (about 24.8 days) is waited in steps. `now` is a monotonic clock, ms.
 */
export function waitBetweenAttempts(
  ms: number,
  signal: AbortSignal,
  now: () => number = () => performance.now(),
): Promise<WaitOutcome> {
  const startedAt = now();
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (cancelled: boolean): void => {
      if (timer) clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve({ waitedMs: Math.round(now() - startedAt), cancelled });
    };
    const onAbort = (): void => finish(true);
    const arm = (): void => {
      const left = ms - (now() - startedAt);
      if (left <= 0) {
        finish(false);
        return;
      }
      timer = setTimeout(arm, Math.min(left, MAX_TIMER_DELAY_MS));
    };
    if (signal.aborted) {
      resolve({ waitedMs: 0, cancelled: true });
      return;
    }
    signal.addEventListener("abort", onAbort, { once: true });
    arm();
  });
}

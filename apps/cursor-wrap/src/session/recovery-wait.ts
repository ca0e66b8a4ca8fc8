import { terminalSafe } from "@cursor-wrap/events";
import type { Formatter } from "@cursor-wrap/format";
import { MAX_TIMER_DELAY_MS } from "@cursor-wrap/monitor";
import { formatDuration } from "@cursor-wrap/wording";

/** Shows the time left while the session waits between two attempts (on a terminal). */
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

/**
 * A countdown on the wrapper's stderr, redrawn every second on one line:
 * `⏳ usage limit: waiting … · resuming in 1h 59m (Ctrl+C to stop)`, erased at the end.
 */
export function stderrCountdown(
  stream: { write(text: string): unknown },
  options: { now?: () => number; refreshMs?: number } = {},
): WaitDisplay {
  const now = options.now ?? (() => performance.now());
  let timer: ReturnType<typeof setInterval> | undefined;
  return {
    start(message, waitMs) {
      const until = now() + waitMs;
      const draw = (): void => {
        const left = formatDuration(Math.max(0, until - now()));
        stream.write(
          `\r\u001b[2K⏳ ${terminalSafe(message)} · resuming in ${left} (Ctrl+C to stop)`,
        );
      };
      draw();
      timer = setInterval(draw, options.refreshMs ?? 1_000);
      timer.unref?.();
    },
    stop() {
      if (timer === undefined) return;
      clearInterval(timer);
      timer = undefined;
      stream.write("\r\u001b[2K");
    },
  };
}

/** The countdown in a text rendering's own status line (a terminal). */
export function formatterCountdown(formatter: Formatter, now: () => number): WaitDisplay {
  return {
    start(message, waitMs) {
      formatter.notice(message, { firesAt: now() + waitMs, label: "resuming in" });
    },
    stop() {
      formatter.notice("");
    },
  };
}

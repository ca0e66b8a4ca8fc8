import { terminalSafe } from "@cursor-wrap/events";
import type { Formatter } from "@cursor-wrap/format";
import type { WaitDisplay } from "@cursor-wrap/run";
import { formatDuration } from "@cursor-wrap/wording";

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

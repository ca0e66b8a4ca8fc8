import { formatDuration } from "@cursor-wrap/monitor";
import type { createColors } from "picocolors";
import type { Output } from "./types.js";

/** Options for {@link createStatusLine}. */
export interface StatusLineOptions {
  out: Output;
  /** Draw at all: only on a terminal. */
  tty: boolean;
  paint: ReturnType<typeof createColors>;
  /** Monotonic clock, ms. */
  now: () => number;
  /** Redraw period while something is shown, ms. */
  refreshMs: number;
  /** Whether the output is at the start of a line (the status line is drawn only there). */
  atLineStart: () => boolean;
}

/**
 * The one live line at the bottom of a terminal rendering: the running tool call and its
 * elapsed time, else a notice ("quiet for 30s; hang in 30s"). It is erased before any other
 * output and drawn again after it; a timer redraws it only while there is something to show.
 */
export interface StatusLine {
  /** A tool call started: shown until {@link toolEnded}. */
  toolStarted(id: string, what: string, startedAt: number): void;
  /** A tool call ended; returns when it started, if it was known. */
  toolEnded(id: string): number | undefined;
  /** Forget every running tool call and the notice. */
  reset(): void;
  /** Show a notice while no tool runs. */
  setNotice(text: string): void;
  readonly notice: string;
  /** Erase the line (before writing other output). */
  clear(): void;
  /** Draw the line (after other output). */
  draw(): void;
  /** Erase, draw, and start or stop the redraw timer as needed. */
  refresh(): void;
  /** Stop the timer and erase the line. */
  close(): void;
}

/** Create the live status line of a text rendering. */
export function createStatusLine(options: StatusLineOptions): StatusLine {
  const { out, tty, paint, now, refreshMs } = options;
  const running = new Map<string, { what: string; startedAt: number }>();
  let notice = "";
  let drawn = "";
  let timer: ReturnType<typeof setInterval> | undefined;

  const text = (): string => {
    const calls = [...running.values()];
    const latest = calls.at(-1);
    if (latest) {
      const more = calls.length > 1 ? ` (+${calls.length - 1} more)` : "";
      return `${paint.cyan("⏳")} ${latest.what} ${paint.dim(`· ${formatDuration(now() - latest.startedAt)}${more}`)}`;
    }
    return notice ? paint.dim(notice) : "";
  };

  const line: StatusLine = {
    toolStarted(id, what, startedAt) {
      running.set(id, { what, startedAt });
    },
    toolEnded(id) {
      const started = running.get(id);
      running.delete(id);
      return started?.startedAt;
    },
    reset() {
      running.clear();
      notice = "";
    },
    setNotice(next) {
      notice = next;
    },
    get notice() {
      return notice;
    },
    clear() {
      if (!drawn) return;
      out.write("\r\u001b[2K");
      drawn = "";
    },
    draw() {
      if (!tty || !options.atLineStart()) return;
      const next = text();
      if (!next) return;
      out.write(next);
      drawn = next;
    },
    refresh() {
      line.clear();
      line.draw();
      const wanted = tty && (running.size > 0 || notice !== "");
      if (wanted && !timer) {
        timer = setInterval(line.refresh, refreshMs);
        timer.unref?.();
      } else if (!wanted && timer) {
        clearInterval(timer);
        timer = undefined;
      }
    },
    close() {
      line.reset();
      if (timer) clearInterval(timer);
      timer = undefined;
      line.clear();
    },
  };
  return line;
}

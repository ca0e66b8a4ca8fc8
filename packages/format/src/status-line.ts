import { formatDuration } from "@cursor-wrap/wording";
import type { createColors } from "picocolors";
import type { NoticeTiming, Output } from "./types.js";

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

/** What the agent is doing, as the status line says it. */
export type StatusPhase = "waiting" | "thinking" | "responding";

const PHASE_TEXT: Record<StatusPhase, string> = {
  waiting: "waiting for cursor-agent",
  thinking: "thinking",
  responding: "responding",
};

/**
 * The one live line at the bottom of a terminal rendering, from the start of a turn to its
 * end: the running tool call and its elapsed time, else what the agent is doing ("thinking ·
 * 4s"); a soft warning counts down to the verdict it announces ("quiet for 31s; hang in 29s").
 * It is erased before any other output and drawn again after it; a timer redraws it only while
 * there is something to show.
 */
export interface StatusLine {
  /** A turn started (at `startedAt`): show that the agent is being waited for. */
  startTurn(startedAt: number): void;
  /** The agent is thinking or responding (`at`: when it last showed it). */
  setPhase(phase: StatusPhase, at: number): void;
  /** A tool call started: shown until {@link toolEnded}. */
  toolStarted(id: string, what: string, startedAt: number): void;
  /** A tool call ended; returns when it started, if it was known. */
  toolEnded(id: string): number | undefined;
  /** The turn is over: forget the phase, every running tool call and the notice. */
  reset(): void;
  /** Show a soft warning, counting down when its timing is known; "" clears it. */
  setNotice(text: string, timing?: NoticeTiming): void;
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
  let phase: { phase: StatusPhase; since: number } | undefined;
  let notice = "";
  let timing: NoticeTiming | undefined;
  let drawn = "";
  let timer: ReturnType<typeof setInterval> | undefined;

  const countdown = (): string => {
    if (!timing) return "";
    return ` · ${timing.label ?? "hang in"} ${formatDuration(Math.max(0, timing.firesAt - now()))}`;
  };

  // The line as a label, which is cut when the terminal is too narrow, and the live part after
  // it (elapsed time, countdown), which is kept whole: a long command or notice must not hide
  // the countdown to a verdict.
  const text = (): [label: string, live: string] => {
    const calls = [...running.values()];
    const latest = calls.at(-1);
    if (latest) {
      const more = calls.length > 1 ? ` (+${calls.length - 1} more)` : "";
      const warning = timing ? paint.yellow(countdown()) : "";
      return [
        `${paint.cyan("⏳")} ${latest.what}`,
        ` ${paint.dim(`· ${formatDuration(now() - latest.startedAt)}${more}`)}${warning}`,
      ];
    }
    if (notice) {
      if (timing?.quietSince !== undefined) {
        return [
          "",
          paint.yellow(
            `… quiet for ${formatDuration(now() - timing.quietSince)}${countdown()} if nothing arrives`,
          ),
        ];
      }
      // A countdown of its own (a wait between attempts): the notice, then the time left.
      if (timing?.label !== undefined) return [paint.yellow(notice), paint.yellow(countdown())];
      return [paint.dim(notice), ""];
    }
    if (phase) {
      return [
        "",
        paint.dim(`… ${PHASE_TEXT[phase.phase]} · ${formatDuration(now() - phase.since)}`),
      ];
    }
    return ["", ""];
  };

  const line: StatusLine = {
    startTurn(startedAt) {
      phase = { phase: "waiting", since: startedAt };
    },
    setPhase(next, at) {
      if (phase?.phase !== next) phase = { phase: next, since: at };
    },
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
      phase = undefined;
      notice = "";
      timing = undefined;
    },
    setNotice(next, nextTiming) {
      notice = next;
      timing = next ? nextTiming : undefined;
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
      const [label, live] = text();
      const next = fitWidth(label, live, out.columns);
      if (!next) return;
      out.write(next);
      drawn = next;
    },
    refresh() {
      line.clear();
      line.draw();
      const wanted = tty && (running.size > 0 || notice !== "" || phase !== undefined);
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

// Characters a terminal draws two columns wide: East Asian wide and full-width forms, and
// emoji (the status line's ⏳ among them).
const WIDE =
  /[\u1100-\u115f\u231a\u231b\u23e9-\u23ec\u23f0\u23f3\u25fd\u25fe\u2614\u2615\u2648-\u2653\u26a1\u26aa\u26ab\u26bd\u26be\u26c4\u26c5\u26ce\u26d4\u26ea\u26f2-\u26fa\u26fd\u2705\u270a\u270b\u2728\u274c\u274e\u2753-\u2755\u2757\u2795-\u2797\u27b0\u27bf\u2b1b\u2b1c\u2b50\u2b55\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f680}-\u{1f6ff}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;
const COLOUR = /\u001b\[[0-9;]*m/y;

/**
 * `label` then `live`, cut to fit `columns` (a column spare, so the terminal never wraps it: a
 * wrapped line could not be erased in place and would leave a copy behind at every redraw):
 * the label is cut first, ending in "…"; only when `live` alone does not fit is it cut too.
 * Colour sequences are kept and take no room; one is reset after a cut.
 */
function fitWidth(label: string, live: string, columns: number | undefined): string {
  const text = label + live;
  if (columns === undefined || !Number.isFinite(columns) || columns < 3) return text;
  const room = columns - 1;
  if (widthUpTo(text, Number.POSITIVE_INFINITY).columns <= room) return text;
  const liveWidth = widthUpTo(live, Number.POSITIVE_INFINITY).columns;
  // Room for a few characters of the label and its "…", or the whole line is cut as one.
  const labelRoom = room - liveWidth - 1;
  const [cutText, limit, after] = labelRoom >= 4 ? [label, labelRoom, live] : [text, room - 1, ""];
  const cut = widthUpTo(cutText, limit);
  return `${cutText.slice(0, cut.index)}…${cut.coloured ? "\u001b[0m" : ""}${after}`;
}

/**
 * Walk `text` while it fits in `limit` columns: where it stops, the columns taken, and whether
 * a colour sequence was passed (colour sequences take no room).
 */
function widthUpTo(text: string, limit: number) {
  let columns = 0;
  let coloured = false;
  let index = 0;
  while (index < text.length) {
    COLOUR.lastIndex = index;
    const colour = COLOUR.exec(text);
    if (colour) {
      coloured = true;
      index += colour[0].length;
      continue;
    }
    const character = String.fromCodePoint(text.codePointAt(index)!);
    const width = WIDE.test(character) ? 2 : 1;
    if (columns + width > limit) break;
    columns += width;
    index += character.length;
  }
  return { index, columns, coloured };
}

import { shellWord, terminalSafe } from "@cursor-wrap/events";
import { type Formatter, isTerminal } from "@cursor-wrap/format";

/**
 * Where an output format shows the resume hint of a turn that ended abnormally:
 * - `wrapper`: with every terminal decision (stream-json's wrapper line, the text rendering);
 * - `wrapper-unless-result`: the same, unless the turn had a `result`, which is then the
 *   output instead (json);
 * - `none`: never (the final answer alone, for `answer=$(cursor-wrap -p --output-format text)`).
 */
export type HintInOutput = "wrapper" | "wrapper-unless-result" | "none";

/** A formatter that also knows whether the output showed how to resume. */
export interface HintTracker {
  formatter: Formatter;
  /** The last turn's output told how to resume its session. */
  shown(): boolean;
}

/** Watch what `formatter` is given, to know whether its output carried a resume hint. */
export function trackResumeHint(formatter: Formatter, where: HintInOutput): HintTracker {
  let terminalWithSession = false;
  let sawResult = false;
  return {
    formatter: {
      startTurn() {
        terminalWithSession = false;
        sawResult = false;
        formatter.startTurn();
      },
      write(event) {
        if (event.kind === "json" && event.type === "result") sawResult = true;
        formatter.write(event);
      },
      wrapper(decision) {
        if (isTerminal(decision) && decision.sessionId) terminalWithSession = true;
        formatter.wrapper(decision);
      },
      flush: () => formatter.flush(),
      notice: (message, timing) => formatter.notice(message, timing),
      interrupt: () => formatter.interrupt(),
      endTurn: (summary) => formatter.endTurn(summary),
      partialResult: () => formatter.partialResult(),
      close: () => formatter.close(),
    },
    shown() {
      switch (where) {
        case "wrapper":
          return terminalWithSession;
        case "wrapper-unless-result":
          return terminalWithSession && !sawResult;
        case "none":
          return false;
        default: {
          const unreachable: never = where;
          return unreachable;
        }
      }
    },
  };
}

/** The line that says how to resume a session, as the text rendering shows it. */
export function resumeHintLine(sessionId: string): string {
  return `resume with: cursor-wrap --resume ${terminalSafe(shellWord(sessionId))}\n`;
}

import type { Ending } from "../exit-codes.js";
import { type CancelReason, endingOfCancel } from "../run-control.js";
import { type TurnResult, turnFailed } from "../turn/turn-result.js";

/** What the session does after a turn. */
export type NextStep =
  /** The session ends. */
  | { next: "exit"; ending: Ending }
  /** Resume the session with this prompt at once (R-CLI4); `attempt` counts from 1. */
  | { next: "retry"; prompt: string; attempt: number; maxAttempts: number }
  /** Ask the user for the next prompt (interactive only). */
  | { next: "ask" }
  /** The session ends quietly: stdout's reader is gone, there is nothing more to say. */
  | { next: "quit"; ending: Ending };

/** What {@link decideAfterTurn} weighs besides the turn itself. */
export interface SessionState {
  mode: "print" | "interactive";
  /** The session to resume on a retry; none, no retry. */
  sessionId: string | undefined;
  promptAfterHang: string | undefined;
  maxHangRetries: number;
  /** Retries already made after hangs in a row. */
  consecutiveHangs: number;
}

/**
 * Decide what follows a turn (R-CLI3, R-CLI4, R-CLI5). Pure: reporting the turn (wrapper lines,
 * messages, records) is {@link reportTurn}'s job.
 *
 * - A failure the agent reported (auth, plan, quota, unknown session, error event) ends the
 *   session with an error, never retried.
 * - `completed`, `linger`: interactive asks for more; `-p` exits 0 (1 for an `is_error` result).
 * - `hang`: retried with `--prompt-after-hang` while the budget of retries in a row lasts;
 *   otherwise interactive asks, `-p` exits 2. `budget` is never retried.
 * - `abnormal` (no result): an error with `-p`; interactive asks again (a crash costs a turn).
 * - `cancelled`: Ctrl+C in an interactive turn asks again; a signal ends the session with
 *   128+n; a closed stdout ends it quietly with 1.
 */
export function decideAfterTurn(result: TurnResult, state: SessionState): NextStep {
  const interactive = state.mode === "interactive";
  if (turnFailed(result)) return { next: "exit", ending: { kind: "error" } };
  switch (result.outcome) {
    case "completed":
      if (interactive) return { next: "ask" };
      return { next: "exit", ending: { kind: result.resultIsError ? "error" : "completed" } };
    case "linger":
      return interactive ? { next: "ask" } : { next: "exit", ending: { kind: "completed" } };
    case "hang":
      if (
        state.promptAfterHang &&
        state.sessionId &&
        state.consecutiveHangs < state.maxHangRetries
      ) {
        return {
          next: "retry",
          prompt: state.promptAfterHang,
          attempt: state.consecutiveHangs + 1,
          maxAttempts: state.maxHangRetries,
        };
      }
      return interactive ? { next: "ask" } : { next: "exit", ending: { kind: "hang" } };
    case "budget":
      return interactive ? { next: "ask" } : { next: "exit", ending: { kind: "hang" } };
    case "abnormal":
      // An agent that crashed ends the turn; interactively the session goes on.
      return interactive ? { next: "ask" } : { next: "exit", ending: { kind: "error" } };
    case "cancelled":
      return afterCancel(result.cancel);
    default: {
      const unreachable: never = result;
      return unreachable;
    }
  }
}

function afterCancel(cancel: CancelReason): NextStep {
  switch (cancel.kind) {
    case "output":
      return { next: "quit", ending: endingOfCancel(cancel) };
    case "turn":
      return { next: "ask" };
    case "shutdown":
      return { next: "exit", ending: endingOfCancel(cancel) };
    default: {
      const unreachable: never = cancel;
      return unreachable;
    }
  }
}

/** Retries in a row after this step: a retry counts one more, a settled turn starts over. */
export function nextConsecutiveHangs(result: TurnResult, step: NextStep, hangs: number): number {
  if (step.next === "retry") return hangs + 1;
  if (turnFailed(result)) return hangs;
  switch (result.outcome) {
    case "completed":
    case "linger":
    case "hang":
    case "budget":
      return 0;
    case "abnormal":
    case "cancelled":
      return hangs;
    default: {
      const unreachable: never = result;
      return unreachable;
    }
  }
}

import {
  type AgentFailure,
  decideRecovery,
  type PastAttempt,
  type RecoveryClock,
  type RecoveryDecision,
  type RecoveryPolicy,
} from "@cursor-wrap/recovery";
import { type CancelReason, type Ending, endingOfCancel } from "./ending.js";
import { failureOfTurn, type TurnResult } from "./turn-result.js";

/** A decision of the recovery policy to try again. */
export type Recovery = Exclude<RecoveryDecision, { action: "give-up" }>;

/** What the session does after a turn. */
export type NextStep =
  /** The session ends. */
  | { next: "exit"; ending: Ending; gaveUp?: GaveUp }
  /**
   * Try the prompt again (R-CLI4): `recovery` says how (resume, fallback model, auth profile,
   * wait); `prompt` is the text to send, undefined for the user's own prompt again; `attempt`
   * counts from 1 within its kind.
   */
  | {
      next: "retry";
      prompt: string | undefined;
      attempt: number;
      maxAttempts: number;
      failure: AgentFailure;
      recovery: Recovery;
    }
  /** Ask the user for the next prompt (interactive only). */
  | { next: "ask"; gaveUp?: GaveUp }
  /** The session ends quietly: stdout's reader is gone, there is nothing more to say. */
  | { next: "quit"; ending: Ending };

/** The failure a session stopped trying to recover from, and why. */
export interface GaveUp {
  failure: AgentFailure;
  decision: Extract<RecoveryDecision, { action: "give-up" }>;
}

/** What {@link decideAfterTurn} weighs besides the turn itself. */
export interface SessionState {
  mode: "print" | "interactive";
  /** The session to resume on a retry; none: the prompt runs again in a new session. */
  sessionId: string | undefined;
  /**
   * This attempt or an earlier one at the same prompt did work (tool calls, text): a retry
   * asks to go on, never sends the prompt again (R-REC2). Default: this attempt's own.
   */
  progressed?: boolean;
  /** The recovery policy, hang retries included. */
  policy: RecoveryPolicy;
  /** Earlier attempts at this prompt, with what was decided after each. */
  previous: readonly PastAttempt[];
  /** The model and auth profile this attempt ran with (undefined: the user's own). */
  model: string | undefined;
  profile: string | undefined;
  /** Wall clock and jitter (tests pass fixed ones). */
  clock?: RecoveryClock;
}

/**
 * Decide what follows a turn (R-CLI3, R-CLI4, R-CLI5). Pure: reporting the turn (wrapper lines,
 * messages, records) is {@link reportTurn}'s job, and what to do about a failure is
 * `decideRecovery`'s (`@cursor-wrap/recovery`).
 *
 * - `completed`, `linger`: interactive asks for more; `-p` exits 0 (1 for an `is_error` result).
 * - A failure (one the agent named, a hang, a connection lost, a stream ended mid-turn, …):
 *   whatever the recovery policy decides — retry after a backoff, resume, another model or
 *   auth profile, a wait for a reset. When it gives up: a hang or an overrun budget exits 2
 *   with `-p`; a transient failure exits 1 with `-p`; interactively both ask for the next
 *   prompt; any other failure (auth, usage limit, …) ends the session with an error.
 * - `abnormal` with no failure (the agent exited before its stream began): an error with `-p`;
 *   interactive asks again.
 * - `cancelled`: Ctrl+C in an interactive turn asks again; a signal ends the session with
 *   128+n; a closed stdout ends it quietly with 1.
 */
export function decideAfterTurn(result: TurnResult, state: SessionState): NextStep {
  const interactive = state.mode === "interactive";
  if (result.outcome === "cancelled") return afterCancel(result.cancel);
  const failure = failureOfTurn(result);
  if (failure) {
    const decision = decideRecovery(
      failure,
      {
        previous: state.previous,
        sessionId: state.sessionId,
        model: state.model,
        profile: state.profile,
        progressed: result.progressed === true || state.progressed === true,
      },
      state.policy,
      state.clock,
    );
    if (decision.action !== "give-up") {
      return {
        next: "retry",
        prompt: decision.prompt.kind === "continue" ? decision.prompt.text : undefined,
        attempt: decision.attempt,
        maxAttempts: decision.maxAttempts,
        failure,
        recovery: decision,
      };
    }
    const gaveUp = { failure, decision };
    if (failure.kind === "hang" || failure.kind === "budget") {
      return interactive
        ? { next: "ask", gaveUp }
        : { next: "exit", ending: { kind: "hang" }, gaveUp };
    }
    if (failure.transient && interactive) return { next: "ask", gaveUp };
    return { next: "exit", ending: { kind: "error" }, gaveUp };
  }
  switch (result.outcome) {
    case "completed":
      if (interactive) return { next: "ask" };
      return { next: "exit", ending: { kind: result.resultIsError ? "error" : "completed" } };
    case "linger":
      return interactive ? { next: "ask" } : { next: "exit", ending: { kind: "completed" } };
    case "hang":
    case "budget":
      // Always a failure (above); kept for the compiler's exhaustiveness.
      return interactive ? { next: "ask" } : { next: "exit", ending: { kind: "hang" } };
    case "abnormal":
      // An agent that crashed before its stream began ends the turn; interactively the
      // session goes on.
      return interactive ? { next: "ask" } : { next: "exit", ending: { kind: "error" } };
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

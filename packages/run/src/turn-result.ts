import type { Usage } from "@cursor-wrap/events";
import type { Reason } from "@cursor-wrap/monitor";
import { type AgentFailure, failureOf } from "@cursor-wrap/recovery";
import type { ExitInfo } from "@cursor-wrap/supervisor";
import type { CancelReason } from "./ending.js";

/** What every turn reports, whatever its outcome. */
export interface TurnBase {
  /** The agent session, once announced (or the one resumed). */
  sessionId: string | undefined;
  /** How the agent process ended. */
  exit: ExitInfo;
  /**
   * What went wrong, if the agent said (auth, usage limit, overloaded, …; an unsupported
   * protocol) or its end tells (a connection lost while reconnecting, a stream that ended
   * mid-turn): see `failureOfEnding` in `@cursor-wrap/recovery`.
   */
  failure: AgentFailure | undefined;
  /** The result event said `is_error`. */
  resultIsError: boolean;
  durationMs: number;
  toolCalls: number;
  usage: Usage | undefined;
  /** The last non-JSON stderr line, to explain an abnormal exit. */
  lastStderr: string | undefined;
  /** The agent did work (a tool call, text): a retry resumes rather than repeats. Default false. */
  progressed?: boolean;
  /** The result's text (the agent's answer), when the turn had a result with text. */
  answer?: string | undefined;
  /** The model the agent said it runs on (its `system/init`), when it said. */
  agentModel?: string | undefined;
}

/** How a turn ended, with what each outcome carries. */
export type TurnResult = TurnBase &
  (
    | {
        outcome: "completed";
        /** Ctrl+C ended the wait for an agent that had answered (its exit was not waited for). */
        interrupted?: boolean;
      }
    /** A verdict fired (the tree was killed): `reason` says why. */
    | { outcome: "hang" | "linger" | "budget"; reason: Reason }
    /** The agent exited without a result. */
    | { outcome: "abnormal" }
    | { outcome: "cancelled"; cancel: CancelReason }
  );

/** How a turn ended. */
export type TurnOutcome = TurnResult["outcome"];

/**
 * The agent reported a failure (auth, usage limit, overloaded, …) and the turn did not
 * complete. A stream that merely ended mid-turn is an abnormal exit, not one of these.
 */
export function turnFailed(result: TurnResult): boolean {
  const { failure } = result;
  if (failure === undefined || failure.kind === "ended-mid-turn") return false;
  switch (result.outcome) {
    case "completed":
    case "cancelled":
      return false;
    case "hang":
    case "budget":
      // The verdict explains a stuck agent better than a transient message before it.
      return !failure.transient;
    case "linger":
    case "abnormal":
      return true;
    default: {
      const unreachable: never = result;
      return unreachable;
    }
  }
}

/**
 * The failure the recovery policy answers for a turn: the one the agent named, else a hang or
 * an overrun budget, else the abnormal end. A final failure the agent named wins over a verdict
 * (a hang after "Authentication required" is a sign-in failure); a transient one does not (an
 * agent that reconnected after a dropped connection and then hung, hung). Undefined for a turn
 * that completed, lingered or was cancelled, and for an agent that exited before its stream
 * began.
 */
export function failureOfTurn(result: TurnResult): AgentFailure | undefined {
  switch (result.outcome) {
    case "completed":
    case "linger":
    case "cancelled":
      return undefined;
    case "hang":
    case "budget":
      return result.failure && !result.failure.transient
        ? result.failure
        : failureOf(result.outcome, result.reason.message);
    case "abnormal":
      return result.failure;
    default: {
      const unreachable: never = result;
      return unreachable;
    }
  }
}

import type { Usage } from "@cursor-wrap/events";
import type { Reason } from "@cursor-wrap/monitor";
import type { ExitInfo } from "@cursor-wrap/supervisor";
import type { CancelReason } from "../run-control.js";
import type { AgentFailure } from "./failures.js";

/** What every turn reports, whatever its outcome. */
export interface TurnBase {
  /** The agent session, once announced (or the one resumed). */
  sessionId: string | undefined;
  /** How the agent process ended. */
  exit: ExitInfo;
  /** A failure the agent reported (auth, plan, quota, unknown session, error event). */
  failure: AgentFailure | undefined;
  /** The result event said `is_error`. */
  resultIsError: boolean;
  durationMs: number;
  toolCalls: number;
  usage: Usage | undefined;
  /** The last non-JSON stderr line, to explain an abnormal exit. */
  lastStderr: string | undefined;
}

/** How a turn ended, with what each outcome carries. */
export type TurnResult = TurnBase &
  (
    | { outcome: "completed" }
    /** A verdict fired (the tree was killed): `reason` says why. */
    | { outcome: "hang" | "linger" | "budget"; reason: Reason }
    /** The agent exited without a result. */
    | { outcome: "abnormal" }
    | { outcome: "cancelled"; cancel: CancelReason }
  );

/** How a turn ended. */
export type TurnOutcome = TurnResult["outcome"];

/**
 * The agent reported a failure (auth, plan, quota, …) and the turn did not complete: never
 * retried (R-CLI4).
 */
export function turnFailed(result: TurnResult): boolean {
  return (
    result.failure !== undefined && result.outcome !== "completed" && result.outcome !== "cancelled"
  );
}

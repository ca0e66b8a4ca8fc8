import { type AgentFailure, failureOf } from "./failure.js";

/** How an attempt that produced no result ended. */
export interface AttemptEnding {
  /** The failure the agent's own words named, if any (it wins). */
  named: AgentFailure | undefined;
  /** The agent's last lifecycle event said it was reconnecting or retrying, and it never got back. */
  reconnecting: boolean;
  /** The agent's event stream had begun: the turn was under way. */
  streamStarted: boolean;
  /** How the process ended. */
  exit: { code: number | null; signal: string | null };
  /** The agent's last stderr line, to quote. */
  lastStderr?: string | undefined;
}

/**
 * The failure of an attempt that ended without a result: the one the agent named; else, for a
 * non-zero exit, a connection lost while the agent was reconnecting, or a stream that ended
 * mid-turn (its words unknown). An agent that exits non-zero before its stream began (a bad
 * flag, a broken install) is an ordinary abnormal exit: undefined, never retried.
 */
export function failureOfEnding(ending: AttemptEnding): AgentFailure | undefined {
  if (ending.named) return ending.named;
  const { code, signal } = ending.exit;
  if (code === 0 && signal === null) return undefined;
  const how = signal ? `signal ${signal}` : `code ${code}`;
  if (ending.reconnecting) {
    return failureOf(
      "connection",
      ending.lastStderr ?? `the agent exited with ${how} while reconnecting`,
    );
  }
  if (ending.streamStarted) {
    return failureOf(
      "ended-mid-turn",
      ending.lastStderr ?? `the agent exited with ${how} without a result`,
    );
  }
  return undefined;
}

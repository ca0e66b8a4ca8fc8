import { constants } from "node:os";

/** The exit codes of a run, as the `cursor-wrap` CLI exits with them (R-CLI3). */
export const EXIT = {
  /** The turn completed (also after a linger kill); interactive: end of input. */
  completed: 0,
  /** Spawn failure, abnormal exit, auth/plan/quota failure, `is_error`, bad usage, EPIPE. */
  error: 1,
  /** A hang or budget overrun that retries did not recover. */
  hang: 2,
} as const;

/** How a run ended, which decides both its exit code and whether its log is flagged. */
export type Ending =
  | { kind: "completed" }
  | { kind: "error" }
  | { kind: "hang" }
  /** A signal ended the run (SIGINT at the prompt or during a turn, SIGTERM, SIGHUP). */
  | { kind: "signal"; signal: NodeJS.Signals }
  /** The caller cancelled the run with no signal (`AgentRun.cancel()`, an abort). */
  | { kind: "cancelled" };

/**
 * Why a turn was cancelled: this turn only (Ctrl+C in an interactive turn: the session goes
 * on), the whole run (a signal, `AgentRun.cancel()`, an aborted `signal` option), or its output
 * failing: stdout's reader gone (`EPIPE`) or a write error (`ENOSPC` on a full disk, `EFBIG`
 * past a file-size limit, …), by its error code.
 */
export type CancelReason =
  | { kind: "turn"; signal?: NodeJS.Signals }
  | {
      kind: "shutdown";
      /** The signal that asked for it, if one did. */
      signal?: NodeJS.Signals;
      /** Why, in the caller's words (`AgentRun.cancel("deadline")`). */
      message?: string;
    }
  | { kind: "output"; code: string };

/** 128 + the signal's number: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

/** The exit code of an ending (a cancel with no signal is 1: the run did not finish). */
export function exitCodeOf(ending: Ending): number {
  switch (ending.kind) {
    case "completed":
      return EXIT.completed;
    case "error":
    case "cancelled":
      return EXIT.error;
    case "hang":
      return EXIT.hang;
    case "signal":
      return signalExitCode(ending.signal);
    default: {
      const unreachable: never = ending;
      return unreachable;
    }
  }
}

/** Whether an ending deserves a look (R-LOG7): errors and hangs flag the log. */
export function endingFlags(ending: Ending): boolean {
  return ending.kind === "error" || ending.kind === "hang";
}

/** How a run stopped by a cancel ends. */
export function endingOfCancel(reason: CancelReason): Ending {
  if (reason.kind === "output") return { kind: "error" };
  return reason.signal === undefined
    ? { kind: "cancelled" }
    : { kind: "signal", signal: reason.signal };
}

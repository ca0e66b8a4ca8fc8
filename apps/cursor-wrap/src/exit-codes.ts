import { constants } from "node:os";

/** The exit codes of cursor-wrap (R-CLI3). */
export const EXIT = {
  /** The turn completed (also after a linger kill); interactive: end of input. */
  completed: 0,
  /** Spawn failure, abnormal exit, auth/plan/quota failure, `is_error`, bad usage, EPIPE. */
  error: 1,
  /** A hang or budget overrun that retries did not recover. */
  hang: 2,
} as const;

/** The exit codes as `--help` lists them (the README's table, shorter). */
export const EXIT_CODES_HELP = [
  "  0    the turn completed (also when a lingering agent was killed after its result);",
  "       interactive: end of input (Ctrl+D)",
  "  1    error: the agent could not start, exited without a result, reported an auth, plan or",
  "       quota failure, or its result said is_error; bad usage; stdout closed or failing",
  "  2    a hang or a turn budget overrun that retries did not recover",
  "  129  SIGHUP: the terminal was closed",
  "  130  SIGINT: Ctrl+C (during a -p turn, or at an empty prompt)",
  "  143  SIGTERM",
  "       On a signal the agent's process tree is killed first.",
  "After a hang or an error, how to resume (cursor-wrap --resume <id>) is in the output: the",
  "resume field of the wrapper line that ends stream-json or json, or the text rendering;",
  "otherwise (the answer alone to a pipe, an is_error result) one `resume with:` line on stderr.",
].join("\n");

/** How a session ended, which decides both its exit code and whether its log is flagged. */
export type Ending =
  | { kind: "completed" }
  | { kind: "error" }
  | { kind: "hang" }
  /** A signal ended the session (SIGINT at the prompt or during a turn, SIGTERM, SIGHUP). */
  | { kind: "signal"; signal: NodeJS.Signals };

/** 128 + the signal's number: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

/** The exit code of an ending. */
export function exitCodeOf(ending: Ending): number {
  switch (ending.kind) {
    case "completed":
      return EXIT.completed;
    case "error":
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

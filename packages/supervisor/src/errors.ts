import { CursorWrapError } from "@cursor-wrap/errors";

/**
 * The agent binary could not be started (R-SUP6): missing, not executable, or spawn failed. The
 * message says what happened; what to do about it (a flag to set) is the caller's to say, from
 * `bin` and `reason`.
 */
export class AgentSpawnError extends CursorWrapError {
  static override readonly marker: string = "cursor-wrap.error.agent-spawn";
  /** The binary as given. */
  readonly bin: string;
  /** The system error code (`ENOENT`, `EACCES`, …), when there is one. */
  readonly reason: string | undefined;

  constructor(
    bin: string,
    reason: string | undefined,
    detail: string,
    options: { cause?: unknown } = {},
  ) {
    super("AGENT_SPAWN_FAILED", `cannot start ${JSON.stringify(bin)}: ${detail}`, options);
    this.bin = bin;
    this.reason = reason;
  }
}

/** `pty: true` was asked for but no pty package could be loaded (R-SUP5); `code` `PTY_UNAVAILABLE`. */
export class PtyUnavailableError extends CursorWrapError {
  static override readonly marker: string = "cursor-wrap.error.pty-unavailable";

  constructor(cause?: unknown) {
    super(
      "PTY_UNAVAILABLE",
      "a pseudo-terminal needs a pty package: npm install @lydell/node-pty (prebuilt) or node-pty",
      { cause },
    );
  }
}

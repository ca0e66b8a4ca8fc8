// The MCP server's process (R-MCP4, R-MCP8): run the way the agent is run (its own process
// group and session, a token on every process of its tree, the sentinel guarding it against a
// SIGKILL of the proxy), with its stdin kept open for the client, and stopped in stages so that
// nothing of it outlives the proxy: not a helper in its group, not a `setsid` grandchild.

import type { Writable } from "node:stream";
import {
  type ExitInfo,
  type GroupStopReport,
  type ProcessGroup,
  spawnProcessGroup,
  startTreeSentinel,
  type TreeSentinel,
} from "@cursor-wrap/supervisor";

/** Options for {@link startServerProcess}. */
export interface ServerProcessOptions {
  command: string;
  args: readonly string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** The server's stderr: inherited, or piped into this stream. */
  stderr: "inherit" | Writable;
  /** Time between SIGTERM and SIGKILL, ms. */
  killGraceMs: number;
  /** Guard the tree with a sentinel against a SIGKILL of this process. Default true. */
  sentinel?: boolean;
}

/** A running server. */
export interface ServerProcess {
  readonly group: ProcessGroup;
  /** Resolves when the server exits. */
  readonly exited: Promise<ExitInfo>;
  /** Resolves once its stdout has closed, or `graceMs` after it exited (a helper holds it open). */
  outputClosed(graceMs: number): Promise<void>;
  /**
   * Stop it and everything it started: stdin closed, `stdinCloseGraceMs` to exit, then SIGTERM
   * to its group and every process of its tree, `killGraceMs`, SIGKILL; also when it had
   * already exited (its helpers). Idempotent.
   */
  stop(
    stdinCloseGraceMs: number,
    onStep?: (signal: string, pids: number[]) => void,
  ): Promise<GroupStopReport>;
  /** Cut short the wait for it to exit after its stdin closed (see `ProcessGroup.hurry`). */
  hurry(): void;
}

/** Start the server; `group.spawned` rejects when it cannot be started. */
export function startServerProcess(options: ServerProcessOptions): ServerProcess {
  const sentinel: TreeSentinel | undefined =
    options.sentinel === false
      ? undefined
      : startTreeSentinel({ killGraceMs: options.killGraceMs });
  const group = spawnProcessGroup({
    command: options.command,
    args: options.args,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.env === undefined ? {} : { env: options.env }),
    stderr: options.stderr === "inherit" ? "inherit" : "pipe",
    killGraceMs: options.killGraceMs,
    ...(sentinel ? { sentinel } : {}),
  });
  if (options.stderr !== "inherit") group.stderr?.pipe(options.stderr, { end: false });
  group.spawned.catch(() => sentinel?.close());
  const stdoutClosed = new Promise<void>((resolve) => {
    group.stdout.once("close", () => resolve());
  });
  let stopping: Promise<GroupStopReport> | undefined;
  return {
    group,
    exited: group.exited,
    outputClosed(graceMs) {
      return Promise.race([
        stdoutClosed,
        group.exited.then(
          () => new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref()),
        ),
      ]);
    },
    stop(stdinCloseGraceMs, onStep) {
      stopping ??= group
        .stop({
          stdinCloseGraceMs,
          onStep: (step) => {
            if (step.pids.length > 0) onStep?.(step.signal, step.pids);
          },
        })
        .finally(() => sentinel?.close());
      return stopping;
    },
    hurry: () => group.hurry(),
  };
}

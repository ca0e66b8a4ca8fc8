// The one way cursor-wrap runs a program whose whole tree it answers for: in a session and
// process group of its own, every process of it marked with a token in its environment, stopped
// in stages (stdin closed, a grace, SIGTERM to the group and every marked process, a grace,
// SIGKILL), reaped, and guarded by the sentinel against a SIGKILL of this process. The agent
// (`start`) and the MCP watchdog's server both run this way.

import { type ChildProcess, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { type KillStep, killTree, killTreeSync } from "./kill-tree.js";
import { AGENT_TOKEN_VARIABLE, newTreeToken } from "./process-tree.js";
import type { TreeSentinel } from "./tree-sentinel.js";

/** How a process ended. */
export interface ExitInfo {
  /** Exit code, or null when a signal ended it. */
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Options for {@link spawnProcessGroup}. */
export interface ProcessGroupOptions {
  /** The program: a name on PATH or a path. */
  command: string;
  args?: readonly string[];
  cwd?: string;
  /** Environment (default `process.env`); the group's token is added to it. */
  env?: NodeJS.ProcessEnv;
  /** The token to mark the tree with. Default: a fresh random one. */
  token?: string;
  /** Its stderr: a pipe for the caller (default), this process's own, or nowhere. */
  stderr?: "pipe" | "inherit" | "ignore";
  /** Time between SIGTERM and SIGKILL when stopping, ms. */
  killGraceMs: number;
  /**
   * A sentinel to guard the tree with from its start until it is stopped and swept, so a
   * SIGKILL of this process still ends it (within the sentinel's grace and a second).
   */
  sentinel?: TreeSentinel;
}

/** What {@link ProcessGroup.stop} did. */
export interface GroupStopReport {
  /** The leader had exited before the stop began. */
  alreadyExited: boolean;
  /** What made the leader exit: its stdin closing, or the signals. */
  endedBy: "stdin-closed" | "signals" | "had-exited";
  /** Stages of the kill of what was left (the leader and its helpers), if any. */
  steps: KillStep[];
  /** Processes still alive after SIGKILL (normally none). */
  survivors: number[];
}

/** A program running in a process group of its own. */
export interface ProcessGroup {
  /** The leader's pid (also the group's and session's id); undefined if it did not start. */
  readonly pid: number | undefined;
  /** The token every process of the tree carries (`AGENT_TOKEN_VARIABLE`). */
  readonly token: string;
  /** The leader's stdin, kept open until {@link stop} (or the caller) closes it. */
  readonly stdin: Writable;
  readonly stdout: Readable;
  /** With `stderr: "pipe"`. */
  readonly stderr: Readable | null;
  /** The underlying child process. */
  readonly child: ChildProcess;
  /** Resolves once it runs; rejects with the system error (`ENOENT`, `EACCES`) if it cannot start. */
  readonly spawned: Promise<void>;
  /** Resolves when the leader exits (never, if it did not start). */
  readonly exited: Promise<ExitInfo>;
  readonly exitInfo: ExitInfo | undefined;
  /**
   * Stop the whole tree, in stages: close the leader's stdin and give it `stdinCloseGraceMs` to
   * exit; then, whether it exited or not, SIGTERM to the group and every process carrying the
   * token (helpers in the group, a `setsid` grandchild), `killGraceMs`, SIGKILL; reap. Nothing
   * of the tree outlives it. Idempotent: every call gets the same promise.
   */
  stop(options?: {
    stdinCloseGraceMs?: number;
    onStep?: (step: KillStep) => void;
  }): Promise<GroupStopReport>;
  /**
   * Cut short the wait after the leader's stdin closed (a stop under way, or the next one):
   * whoever asked again does not want to wait for it. The signals' own grace stays.
   */
  hurry(): void;
  /** SIGKILL the whole tree at once, synchronously, for a process about to exit. */
  killSync(): void;
}

/**
 * Spawn `command` in a session and process group of its own (`detached`), its stdin and
 * stdout piped, every process of its tree carrying a fresh token; guarded by `sentinel` when
 * one is given. See {@link ProcessGroup}.
 */
export function spawnProcessGroup(options: ProcessGroupOptions): ProcessGroup {
  const token = options.token ?? newTreeToken();
  const env = { ...(options.env ?? process.env), [AGENT_TOKEN_VARIABLE]: token };
  const child = spawn(options.command, [...(options.args ?? [])], {
    cwd: options.cwd,
    env,
    // Its own session and group: the terminal's Ctrl+C reaches this process only, and the
    // whole tree can be signalled at once.
    detached: true,
    stdio: ["pipe", "pipe", options.stderr ?? "pipe"],
  });
  // Writes to a leader that exited without reading: its exit says what happened.
  child.stdin?.on("error", () => {});
  let exitInfo: ExitInfo | undefined;
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once("exit", (code, signal) => {
      exitInfo = { code, signal };
      resolve(exitInfo);
    });
  });
  const spawned = new Promise<void>((resolve, reject) => {
    child.once("spawn", () => {
      if (child.pid !== undefined) options.sentinel?.guard({ pid: child.pid, token });
      resolve();
    });
    child.once("error", (error) => {
      if (child.pid === undefined) reject(error);
    });
  });
  // A caller that only looks at `exited` must not see an unhandled rejection.
  spawned.catch(() => {});

  let stopping: Promise<GroupStopReport> | undefined;
  let hurried = false;
  let endGrace: (() => void) | undefined;
  const release = (): void => {
    if (child.pid !== undefined) options.sentinel?.release({ pid: child.pid, token });
  };

  return {
    get pid() {
      return child.pid;
    },
    token,
    stdin: child.stdin!,
    stdout: child.stdout!,
    stderr: child.stderr,
    child,
    spawned,
    exited,
    get exitInfo() {
      return exitInfo;
    },
    stop(stopOptions = {}) {
      stopping ??= (async () => {
        const pid = child.pid;
        const alreadyExited = exitInfo !== undefined;
        if (pid === undefined) {
          return { alreadyExited: true, endedBy: "had-exited", steps: [], survivors: [] };
        }
        child.stdin?.end();
        let endedBy: GroupStopReport["endedBy"] = alreadyExited ? "had-exited" : "signals";
        if (!alreadyExited) {
          let timer: ReturnType<typeof setTimeout> | undefined;
          const grace = new Promise<"grace">((resolve) => {
            endGrace = () => resolve("grace");
            timer = setTimeout(endGrace, hurried ? 0 : (stopOptions.stdinCloseGraceMs ?? 0));
          });
          const first = await Promise.race([exited.then(() => "exited" as const), grace]);
          clearTimeout(timer);
          if (first === "exited") endedBy = "stdin-closed";
        }
        // Always, also after a clean exit: helpers in its group, and a `setsid` grandchild
        // carrying the token, go with it. Only processes verifiably of this tree are signalled.
        const { steps, survivors } = await killTree({
          rootPid: pid,
          token,
          graceMs: options.killGraceMs,
          ...(stopOptions.onStep ? { onStep: stopOptions.onStep } : {}),
        });
        await exited;
        release();
        return { alreadyExited, endedBy, steps, survivors };
      })();
      return stopping;
    },
    hurry() {
      hurried = true;
      endGrace?.();
    },
    killSync() {
      if (child.pid !== undefined) killTreeSync(child.pid, token);
    },
  };
}

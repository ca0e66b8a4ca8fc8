import type { SessionLog } from "@cursor-wrap/logger";
import {
  type CancelReason,
  type Ending,
  endingOfCancel,
  signalExitCode,
  writeRecord,
} from "@cursor-wrap/run";
import { type AgentProcess, startTreeSentinel, type TreeSentinel } from "@cursor-wrap/supervisor";
import { STOP_SIGNALS } from "./exit-signals.js";
import { printError } from "./print-error.js";

/** A reader that went away: like any Unix tool, the wrapper then stops quietly. */
const readerGone = (reason: CancelReason | undefined): boolean =>
  reason?.kind === "output" && reason.code === "EPIPE";

/** The line that says why output failed, e.g. `cannot write to stdout: ENOSPC (no space left on device)`. */
export function outputErrorMessage(error: NodeJS.ErrnoException): string {
  const code = error.code ?? "error";
  const known: Record<string, string> = {
    ENOSPC: "no space left on device",
    EFBIG: "file too large",
    EDQUOT: "disk quota exceeded",
    EIO: "input/output error",
    EROFS: "read-only file system",
  };
  const why = Object.hasOwn(known, code) ? known[code] : error.message;
  return `cannot write to stdout: ${code} (${why}); the agent was stopped, and its output up to here is in the log`;
}

/** The parts of `process` the run control listens to and acts on (injectable for tests). */
export type ProcessHooks = Pick<NodeJS.Process, "on" | "off" | "exit">;

/** Options for {@link createRunControl}. */
export interface RunControlOptions {
  /** `-p`: Ctrl+C ends the run; interactive: it cancels the running turn. */
  print: boolean;
  log: SessionLog;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Where lines for people go (the stderr above, or a wrapper that keeps a status line clean). */
  show?: { write(text: string): unknown };
  /** Default: the real `process`. */
  process?: ProcessHooks;
  /**
   * Guard each agent with a sentinel that kills its tree if this process dies without a
   * chance to clean up (SIGKILL, the OOM killer), after this grace, ms. Off when undefined.
   */
  sentinelKillGraceMs?: number;
}

/** The one owner of "stop this run". */
export interface RunControl {
  /** Set once something decided the run must stop. */
  readonly stopping: CancelReason | undefined;
  /** Resolves when the run must stop (a signal, a closed stdout). */
  readonly shutdown: Promise<CancelReason>;
  /** A turn started: a stop or Ctrl+C now cancels it through `controller`. */
  turnStarted(controller: AbortController): void;
  turnEnded(): void;
  /** The running agent (undefined when none): killed at once on a crash or a hurried stop. */
  agentChanged(agent: AgentProcess | undefined): void;
  /** One line on stderr, unless stdout's reader is gone (then the run ends quietly). */
  printError(message: string): void;
  /** A second Ctrl+C asked for no more grace: whatever is left of the exit waits for nothing. */
  readonly hurried: boolean;
  /** The ending of the run: a stop decides it, whatever the interrupted session said. */
  ending(sessionEnding: Ending): Ending;
  /** Stop listening (the run is over). */
  dispose(): void;
}

/**
 * Owns everything that stops a run: signals, a closed stdout, an error on stderr, a crash of
 * the wrapper, and the process exiting. The policy, by what happens and what the run is doing:
 *
 * | what happens | at the prompt | turn running | kill waiting out its grace | already stopping |
 * |---|---|---|---|---|
 * | Ctrl+C (SIGINT), interactive | the prompt reader sees it: an empty line exits 130, a typed line is cleared | cancel the turn (its tree is killed), back to the prompt | SIGKILL the tree now, cancel the turn | SIGKILL the tree now, the run ends (exit 130 within 2 s) |
 * | SIGINT with `-p`, SIGTERM, SIGHUP, SIGQUIT | stop: exit 130 / 143 / 129 / 131 | stop: kill the tree, exit 130 / 143 / 129 / 131 | SIGKILL the tree now, then stop | SIGINT: SIGKILL now, the run ends (exit 130 within 2 s whatever holds it up); others: ignored |
 * | stdout closed (EPIPE) | stop quietly, exit 1 | stop quietly: kill the tree, exit 1 | same | ignored |
 * | any other stdout write error (ENOSPC, EFBIG, …) | stop: one line naming the error, exit 1, flagged | stop: kill the tree, the same line, exit 1 | same | ignored |
 * | error writing stderr | ignored: there is nowhere left to report it | | | |
 * | uncaught error in the wrapper | SIGKILL the tree, log `wrapper_crashed`, exit 1 | same | same | same |
 * | the process exits | SIGKILL the tree if one is still running | same | same | same |
 * | the process is SIGKILLed (or the OOM killer strikes) | — | the sentinel kills the tree: SIGTERM, the kill grace, SIGKILL | same | same |
 *
 * "Stop" cancels the running turn (which kills the agent's tree in stages and logs it) and
 * resolves {@link RunControl.shutdown}, which ends the session loop; the exit code follows
 * from {@link endingOfCancel}.
 */
/** After a second Ctrl+C, how long the run may take to end by itself before it exits anyway. */
const HURRIED_EXIT_MS = 2_000;

export function createRunControl(options: RunControlOptions): RunControl {
  const { log, print } = options;
  const host: ProcessHooks = options.process ?? process;
  let agent: AgentProcess | undefined;
  let sentinel: TreeSentinel | undefined;
  let turn: AbortController | undefined;
  let stopping: CancelReason | undefined;
  // Armed by a second Ctrl+C: the exit if the run does not end by itself.
  let hurry: NodeJS.Timeout | undefined;
  let resolveShutdown: (reason: CancelReason) => void = () => {};
  const shutdown = new Promise<CancelReason>((resolve) => {
    resolveShutdown = resolve;
  });

  const stop = (reason: CancelReason): void => {
    if (stopping) return;
    stopping = reason;
    turn?.abort(reason);
    resolveShutdown(reason);
  };

  const onSignal = (signal: NodeJS.Signals): void => {
    writeRecord(log, "signal_received", { signal });
    if (stopping) {
      // A second Ctrl+C while shutting down: no more grace. The tree goes at once, and the run
      // ends by itself (its log, its last line); should anything still hold it up, it exits
      // anyway soon after, its log closed.
      if (signal === "SIGINT") {
        agent?.killSync();
        hurry ??= setTimeout(() => {
          log.close({ outcome: "cancelled", flagged: true, exit_code: signalExitCode("SIGINT") });
          host.exit(signalExitCode("SIGINT"));
        }, HURRIED_EXIT_MS);
      }
      return;
    }
    // A kill already under way (after a hang, say) is waiting out its grace: whoever sends a
    // signal now does not want to wait for it, so the tree goes at once.
    if (agent?.killRequested) agent.killSync();
    if (signal === "SIGINT" && !print && turn) {
      // Interactive Ctrl+C: this turn ends, the session goes on (a second one only hurries it).
      if (!turn.signal.aborted) turn.abort({ kind: "turn", signal } satisfies CancelReason);
      return;
    }
    stop({ kind: "shutdown", signal });
  };

  // Once stdout failed, every later write fails the same way (a closed terminal: EIO after
  // SIGHUP): said and logged once.
  let stdoutFailed = false;
  const onStdoutError = (error: NodeJS.ErrnoException): void => {
    if (stdoutFailed) return;
    stdoutFailed = true;
    const reason: CancelReason = { kind: "output", code: error.code ?? "unknown" };
    // Like any Unix tool whose reader went away: stop quietly.
    if (readerGone(reason)) log.setConsoleLevel("silent");
    writeRecord(log, "stdout_closed", { code: error.code, summary: error.message });
    if (!readerGone(reason)) {
      // A full disk or a file-size limit must not pass for success: say so, once.
      printError(options.show ?? options.stderr, outputErrorMessage(error));
    }
    stop(reason);
  };
  const onStderrError = (): void => {};

  const onCrash = (error: unknown): void => {
    agent?.killSync();
    writeRecord(log, "wrapper_crashed", { err: error });
    log.close({ outcome: "crash", flagged: true, exit_code: 1 });
    printError(
      options.stderr,
      `internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    host.exit(1);
  };
  const onExit = (): void => agent?.killSync();

  for (const signal of STOP_SIGNALS) host.on(signal, onSignal);
  options.stdout.on("error", onStdoutError);
  options.stderr.on("error", onStderrError);
  host.on("uncaughtException", onCrash);
  host.on("unhandledRejection", onCrash);
  host.on("exit", onExit);

  return {
    get stopping() {
      return stopping;
    },
    get hurried() {
      return hurry !== undefined;
    },
    shutdown,
    turnStarted(controller) {
      turn = controller;
      if (stopping) controller.abort(stopping);
    },
    turnEnded() {
      turn = undefined;
    },
    agentChanged(running) {
      if (agent) sentinel?.release(agent);
      agent = running;
      if (!running || options.sentinelKillGraceMs === undefined) return;
      // Started with the first agent (a shell process, about a megabyte), then reused.
      sentinel ??= startTreeSentinel({ killGraceMs: options.sentinelKillGraceMs });
      sentinel.guard(running);
    },
    printError(message) {
      if (!readerGone(stopping)) printError(options.show ?? options.stderr, message);
    },
    ending(sessionEnding) {
      return stopping ? endingOfCancel(stopping) : sessionEnding;
    },
    dispose() {
      clearTimeout(hurry);
      sentinel?.close();
      for (const signal of STOP_SIGNALS) host.off(signal, onSignal);
      options.stdout.off("error", onStdoutError);
      options.stderr.off("error", onStderrError);
      host.off("uncaughtException", onCrash);
      host.off("unhandledRejection", onCrash);
      host.off("exit", onExit);
    },
  };
}

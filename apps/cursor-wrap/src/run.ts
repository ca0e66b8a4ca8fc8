import { constants } from "node:os";
import { createFormatter } from "@cursor-wrap/format";
import { openSessionLog, type SessionLog } from "@cursor-wrap/logger";
import type { AgentProcess } from "@cursor-wrap/supervisor";
import type { RunOptions } from "./options.js";
import { printError } from "./print-error.js";
import { createPromptReader, type PromptReader } from "./prompt-reader.js";
import {
  type CancelReason,
  exitCodeOf,
  runInteractiveSession,
  runPrintSession,
  type SessionHooks,
} from "./session.js";
import { UsageError } from "./usage-error.js";

/** The process streams a run talks to (injectable for tests). */
export interface RunIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean; writableNeedDrain?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

const SHUTDOWN_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
const SHOWN_ERRORS = ["agent_failure", "abnormal_exit", "run_failed"];
const SHOWN_IN_TEXT = [
  "hang_detected",
  "linger_detected",
  "budget_exceeded",
  "retry",
  "stall_warning",
];

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/** The prompt of a `-p` run (R-CLI2): the arguments, else stdin read to EOF; a terminal is an error. */
async function printPrompt(options: RunOptions, io: RunIo): Promise<string> {
  if (options.prompt !== undefined) return options.prompt;
  if (io.stdin.isTTY) throw new UsageError("no prompt: give it as an argument or pipe it on stdin");
  const text = (await readAll(io.stdin)).trim();
  if (!text) throw new UsageError("no prompt: stdin was empty");
  return text;
}

/**
 * The main command: run cursor-agent under supervision, in print or interactive mode, and
 * return the exit code (R-CLI3). Signals, a closed stdout and crashes all kill the agent's
 * process tree before the wrapper exits (R-SUP3).
 */
export async function runCommand(options: RunOptions, io: RunIo): Promise<number> {
  const prompt = options.print ? await printPrompt(options, io) : options.prompt;
  const startedAt = performance.now();
  const log: SessionLog = openSessionLog({
    dir: options.logDir,
    console: {
      stream: io.stderr,
      level: options.logLevel,
      // Shown to people already: by the session's one-line errors, and in text mode by the formatter.
      skip: options.outputFormat === "text" ? [...SHOWN_ERRORS, ...SHOWN_IN_TEXT] : SHOWN_ERRORS,
    },
    redact: options.redact,
    retentionMs: options.logRetentionMs,
  });
  log.decision(
    "options",
    {
      mode: options.print ? "print" : "interactive",
      output_format: options.outputFormat,
      idle_timeout_ms: options.idleTimeoutMs,
      tool_grace_ms: options.toolGraceMs,
      tool_timeouts: options.toolTimeouts,
      exit_grace_ms: options.exitGraceMs,
      max_turn_ms: options.maxTurnMs,
      kill_grace_ms: options.killGraceMs,
      drain_grace_ms: options.drainGraceMs,
      prompt_after_hang: options.promptAfterHang,
      max_hang_retries: options.maxHangRetries,
      pty: options.pty,
      parse_cap: options.parseCap,
    },
    "debug",
  );
  const formatter = createFormatter(options.outputFormat, io.stdout, {
    tty: io.stdout.isTTY === true,
  });

  let agent: AgentProcess | undefined;
  let turn: AbortController | undefined;
  let stopping: CancelReason | undefined;
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
    log.decision("signal_received", { signal }, "warn");
    if (stopping) {
      // A second Ctrl+C while shutting down: no more grace.
      if (signal === "SIGINT") {
        agent?.killSync();
        process.exit(130);
      }
      return;
    }
    // A kill already under way (after a hang, say) is waiting out its grace: whoever sends a
    // signal now does not want to wait for it, so the tree goes at once.
    if (agent?.killRequested) agent.killSync();
    if (signal === "SIGINT" && !options.print && turn) {
      // Interactive Ctrl+C: this turn ends, the session goes on (a second one only hurries it).
      if (!turn.signal.aborted) turn.abort({ kind: "turn", signal } satisfies CancelReason);
      return;
    }
    stop({ kind: "shutdown", signal, code: 128 + (constants.signals[signal] ?? 0) });
  };
  const onStdoutError = (error: NodeJS.ErrnoException): void => {
    if (error.code === "EPIPE") {
      // Like any Unix tool whose reader went away: stop quietly.
      log.setConsoleLevel("silent");
      log.decision("stdout_closed", { code: error.code }, "warn");
      stop({ kind: "epipe" });
    }
  };
  const onStderrError = (): void => {};
  const onCrash = (error: unknown): void => {
    agent?.killSync();
    log.error({ err: error }, "wrapper_crashed");
    log.close({ outcome: "crash", flagged: true, exit_code: 1 });
    printError(
      io.stderr,
      `internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    process.exit(1);
  };
  const onExit = (): void => agent?.killSync();
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, onSignal);
  io.stdout.on("error", onStdoutError);
  io.stderr.on("error", onStderrError);
  process.on("uncaughtException", onCrash);
  process.on("unhandledRejection", onCrash);
  process.on("exit", onExit);

  const hooks: SessionHooks = {
    onTurnStart(controller) {
      turn = controller;
      if (stopping) controller.abort(stopping);
    },
    onTurnEnd() {
      turn = undefined;
    },
    shutdown,
    printError: (message) => {
      if (stopping?.kind !== "epipe") printError(io.stderr, message);
    },
  };
  const context = {
    options,
    log,
    formatter,
    stdout: io.stdout,
    stderr: io.stderr,
    onAgent(running: AgentProcess | undefined) {
      agent = running;
    },
  };

  const reader: PromptReader | undefined = options.print
    ? undefined
    : createPromptReader(io.stdin, io.stderr);
  try {
    const result = reader
      ? await runInteractiveSession(context, hooks, reader, prompt)
      : await runPrintSession(context, hooks, prompt!);
    // A signal or a closed stdout decides the exit code, whatever the interrupted turn was doing.
    const exitCode = stopping ? exitCodeOf(stopping) : result.exitCode;
    log.close({
      outcome: stopping?.kind === "shutdown" ? `signal ${stopping.signal}` : result.outcome,
      flagged: result.flagged,
      exit_code: exitCode,
      turns: result.turns,
      duration_ms: Math.round(performance.now() - startedAt),
      session_id: result.sessionId,
    });
    return exitCode;
  } catch (error) {
    log.decision(
      "run_failed",
      { err: error, summary: error instanceof Error ? error.message : String(error) },
      "error",
    );
    log.close({
      outcome: "error",
      flagged: true,
      exit_code: 1,
      duration_ms: Math.round(performance.now() - startedAt),
    });
    throw error;
  } finally {
    reader?.close();
    formatter.close();
    for (const signal of SHUTDOWN_SIGNALS) process.off(signal, onSignal);
    io.stdout.off("error", onStdoutError);
    io.stderr.off("error", onStderrError);
    process.off("uncaughtException", onCrash);
    process.off("unhandledRejection", onCrash);
    process.off("exit", onExit);
  }
}

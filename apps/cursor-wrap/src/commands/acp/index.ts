// `cursor-wrap acp [flags] [-- <agent acp command>]`: the ACP watchdog between an editor and
// the agent. The proxy itself is `@cursor-wrap/acp`; this wires it to the process's stdio,
// signals, the run's flags and a session log.

import type { Readable, Writable } from "node:stream";
import {
  ACP_RECORDS,
  type AcpAgentLauncher,
  type AcpProxyLog,
  startAcpProxy,
  supervisedAgent,
} from "@cursor-wrap/acp";
import { isPlausibleSessionId } from "@cursor-wrap/events";
import { type ConsoleStream, openSessionLog, redact, type SessionLog } from "@cursor-wrap/logger";
import { findAgentBinary } from "@cursor-wrap/run";
import { signalExitCode } from "@cursor-wrap/run/ending";
import { messageWithHint, SHARED_LOG_DIRECTORY_ADVICE } from "../../error-hints.js";
import { STOP_SIGNALS } from "../../exit-signals.js";
import { redactHeldSecrets } from "../../known-secrets.js";
import { agentBaseEnvironment } from "../../options/agent-environment.js";
import { monitorOptions } from "../../options/monitor-options.js";
import { printError } from "../../print-error.js";
import type { RunIo } from "../../run-io.js";
import { relayStderr } from "../../stderr-relay.js";
import { createTerminalSafeWriter } from "../../terminal-safe-writer.js";
import type { AcpFlagOptions } from "./flags.js";

/** The options of `acp`: its table's (`ACP_FLAGS`), and the agent's command. */
export type AcpOptions = AcpFlagOptions & {
  /** After `--`: the agent's command and arguments. Default: the Cursor CLI's `acp`. */
  agentCommand: string[];
  /** cursor-agent's flags given with `acp` (`--api-key`, `-H`, …): before its `acp`. */
  agentFlags?: string[];
};

/** Records that make a log worth a look (the file name is flagged). */
const FLAGGING: ReadonlySet<string> = new Set([
  "acp_hang_detected",
  "acp_agent_restarted",
  "acp_agent_spawn_failed",
  "acp_restart_gave_up",
  "acp_pending_failed",
]);

/** The proxy's log, or none (with one warning) when the log directory cannot be written: the agent must still run. */
function openAcpLog(options: AcpOptions, stderr: ConsoleStream): SessionLog | undefined {
  try {
    return openSessionLog({
      sharedDirectoryAdvice: SHARED_LOG_DIRECTORY_ADVICE,
      dir: options.logDir,
      kind: "acp",
      name: "acp",
      retentionMs: options.logRetentionMs,
      redact: options.redact,
      console: {
        stream: stderr,
        level: options.logLevel,
        skip: ["acp_message", "acp_tool_call", "acp_liveness_sample", "agent_stderr"],
        // An agent that prints other lines on its stdout: all in the log, a few on stderr.
        limits: { acp_invalid_line: 20 },
      },
    });
  } catch (error) {
    printError(stderr, `${messageWithHint(error)}; proxying without a log`);
    return undefined;
  }
}

/** How the agent is started: the command after `--`, or the Cursor CLI's `acp` subcommand. */
function agentLauncher(
  options: AcpOptions,
  env: NodeJS.ProcessEnv,
): { launcher: AcpAgentLauncher; command: string[] } {
  const supervised = (bin: string, args: string[]) =>
    supervisedAgent({
      bin,
      args,
      // No secret of cursor-wrap's own reaches the agent (see agentBaseEnvironment).
      env: agentBaseEnvironment(env),
      killGraceMs: options.killGraceMs,
      drainGraceMs: options.drainGraceMs,
    });
  const [command, ...args] = options.agentCommand;
  if (command !== undefined)
    return { launcher: supervised(command, args), command: options.agentCommand };
  try {
    const bin = findAgentBinary(options.agentBin, env);
    const args = [...(options.agentFlags ?? []), "acp"];
    return { launcher: supervised(bin, args), command: [bin, ...args] };
  } catch (error) {
    // No agent: the proxy still runs, and answers the editor with why (instead of a silent hang).
    return {
      launcher: () => Promise.reject(error),
      command: [options.agentBin ?? "cursor-agent", "acp"],
    };
  }
}

/** Run `cursor-wrap acp`: the watchdog on this process's stdio until the editor closes it. */
export async function acpCommand(
  options: AcpOptions,
  io: RunIo,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  // Credentials have no shape the log's redaction knows: it is told their values.
  redactHeldSecrets(env, options.agentFlags ?? []);
  // The agent's stderr goes on to ours, as the editor reads it, and into the log a line at a
  // time; our own lines on stderr begin on a line of their own.
  let log: SessionLog | undefined;
  const agentStderr = relayStderr(
    // The editor reads the agent's stderr byte for byte; a person running the proxy in a
    // terminal sees it shown safely.
    io.stderr.isTTY ? createTerminalSafeWriter(io.stderr) : io.stderr,
    io.stderr,
    { stderrAll: (events) => log?.stderrAll(events) },
  );
  log = openAcpLog(options, agentStderr.own);
  let flagged = false;
  let turns = 0;
  let sessionId: string | undefined;
  const startedAt = performance.now();
  const opened = log;
  const proxyLog: AcpProxyLog | undefined = opened && {
    record(name, fields) {
      if (FLAGGING.has(name)) flagged = true;
      if (name === "acp_turn_start") turns += 1;
      // The agent's id names the file only when it is one an agent could mean (as a run's).
      if (
        sessionId === undefined &&
        name === "acp_turn_start" &&
        typeof fields.session_id === "string" &&
        isPlausibleSessionId(fields.session_id)
      ) {
        sessionId = fields.session_id;
        opened.setSessionId(sessionId);
      }
      // Every message is logged, without an fsync each; decisions are fsynced.
      if (name === "acp_message") opened.debug(fields, name);
      else opened.decision(name, fields, ACP_RECORDS[name], { sync: "soon" });
    },
    // The agent's stderr is logged by the relay above, not line by line by the proxy.
  };
  const { launcher, command } = agentLauncher(options, env);
  const proxy = startAcpProxy({
    input: io.stdin as NodeJS.ReadableStream as Readable,
    output: io.stdout as NodeJS.WritableStream as Writable,
    startAgent: launcher,
    agentName: options.agentCommand.length === 0 ? "Cursor" : "the agent",
    monitor: monitorOptions(options),
    // The time an agent gets to finish after it was told to stop: after its result in a
    // print-mode run, after session/cancel here.
    cancelGraceMs: options.exitGraceMs,
    maxRestarts: options.maxHangRetries,
    // Setup requests wait for MCP servers to start, as a print-mode run's first output does.
    requestTimeoutMs: options.firstOutputMs,
    maxLineBytes: options.parseCap,
    agentStderr: agentStderr.stream,
    ...(proxyLog ? { log: proxyLog } : {}),
    context: { pid: process.pid, command, cwd: process.cwd() },
  });
  // A signal: the editor hears the end of what it waits for, the agent's tree goes at once,
  // and the exit code says which signal it was (130, 143, 129), as for a run.
  let signalled: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    signalled ??= signal;
    proxy.shutdown(`received ${signal}`, { hurry: true });
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  try {
    const end = await proxy.done;
    const exitCode =
      signalled !== undefined && end.exitCode === 0 ? signalExitCode(signalled) : end.exitCode;
    agentStderr.end();
    // The reason may quote the agent's stderr: redacted, as the log has it.
    if (end.exitCode !== 0) printError(agentStderr.own, redact(`acp: ${end.reason}`));
    log?.close({
      outcome: signalled === undefined ? end.reason : `signal ${signalled}`,
      flagged: flagged || end.exitCode !== 0,
      exit_code: exitCode,
      turns,
      duration_ms: Math.round(performance.now() - startedAt),
      ...(sessionId === undefined ? {} : { session_id: sessionId }),
    });
    return exitCode;
  } finally {
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
  }
}

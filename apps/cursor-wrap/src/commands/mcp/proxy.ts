// `cursor-wrap mcp proxy … -- <server command>`: the watchdog (`@cursor-wrap/mcp`) wired to the
// process's stdio, signals and a log.

import { setFlagsFromString } from "node:v8";
import { terminalSafe } from "@cursor-wrap/events";
import {
  type ConsoleStream,
  DEFAULT_RETENTION_MS,
  openSessionLog,
  type SessionLog,
} from "@cursor-wrap/logger";
import { MCP_RECORDS, type McpProxyLog, startMcpProxy } from "@cursor-wrap/mcp/proxy";
import { AGENT_TOKEN_VARIABLE } from "@cursor-wrap/supervisor";
import { messageWithHint, SHARED_LOG_DIRECTORY_ADVICE } from "../../error-hints.js";
import { STOP_SIGNALS } from "../../exit-signals.js";
import { redactHeldSecrets } from "../../known-secrets.js";
import { shownName } from "../../mcp-sessions.js";
import { printError } from "../../print-error.js";
import type { RunIo } from "../../run-io.js";
import { relayStderr } from "../../stderr-relay.js";
import { createTerminalSafeWriter } from "../../terminal-safe-writer.js";
import { UsageError } from "../../usage-error.js";
import type { McpOptions } from "./flags.js";

/**
 * A proxy's log rotates past this size (the earlier part kept once): a proxy runs as long as
 * Cursor does, and a chatty server must not fill the disk. 64 MiB holds about 200 000 messages.
 */
export const MCP_LOG_ROTATE_BYTES = 64 * 1024 * 1024;

/** The proxy's log, or none (with one warning) when the log directory cannot be written: the server must still run. */
function openProxyLog(
  options: McpOptions,
  serverId: string,
  stderr: ConsoleStream,
  env: NodeJS.ProcessEnv,
): SessionLog | undefined {
  try {
    return openSessionLog({
      sharedDirectoryAdvice: SHARED_LOG_DIRECTORY_ADVICE,
      dir: options.logDir,
      kind: "mcp",
      name: serverId,
      retentionMs: DEFAULT_RETENTION_MS,
      rotateBytes: MCP_LOG_ROTATE_BYTES,
      carry: { agent_token: env[AGENT_TOKEN_VARIABLE], server_id: serverId },
      console: {
        stream: stderr,
        level: "warn",
        skip: ["mcp_message"],
        // A server that logs to its stdout: its lines are all in the log, a few on stderr.
        limits: { mcp_invalid_line: CONSOLE_REPEATS, mcp_smuggled_line: CONSOLE_REPEATS },
      },
    });
  } catch (error) {
    printError(stderr, `${messageWithHint(error)}; proxying without a log`);
    return undefined;
  }
}

/** How many records of one kind of line the server should not have printed reach stderr. */
const CONSOLE_REPEATS = 20;

/**
 * The proxy runs without V8's optimizing compiler (P7, BENCHMARKS.md). One proxy runs beside
 * every MCP server, for as long as Cursor does; compiling its hot paths costs memory in each
 * (about 2.5 MiB under an ordinary load of tools/call round trips) and buys throughput and CPU
 * per message only at rates an editor never sends (about a third more at 64 in flight; large
 * messages are as fast, since splitting and parsing them is native code). The p99 of a
 * sequential round trip was no better with it: compile pauses.
 *
 * Its young generation stays at the size it has (V8 doubles it while much survives, up to 32
 * MiB): a proxy holds a few messages at a time, and every MiB of young generation is a MiB of
 * resident memory once it has been used.
 */
function preferMemoryOverPeakSpeed(): void {
  try {
    setFlagsFromString("--no-opt");
    setFlagsFromString("--semi-space-growth-factor=1");
  } catch {
    // A Node that no longer takes flags at run time: the proxy runs as it would anyway.
  }
}

/** `cursor-wrap mcp proxy … -- <command> [args…]`: run one MCP server behind the watchdog. */
export async function proxyCommand(
  options: McpOptions,
  io: RunIo,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const [command, ...args] = options.command;
  if (command === undefined || command.trim() === "") {
    throw new UsageError(
      "mcp proxy needs the server's command after --, as in cursor-wrap mcp proxy -- npx -y @modelcontextprotocol/server-everything",
    );
  }
  preferMemoryOverPeakSpeed();
  // The server's stderr is logged: a key of its environment it repeats is redacted by value.
  redactHeldSecrets(env);
  const serverId = options.serverId ?? command.split(/[/\\]/).pop() ?? command;
  // Settings not given are left to the proxy's own defaults.
  const settings = Object.fromEntries(
    Object.entries({
      requestTimeoutMs: options.requestTimeoutMs,
      initTimeoutMs: options.initTimeoutMs,
      maxRequestTimeMs: options.maxRequestTimeMs,
      maxLineBytes: options.maxLineBytes,
    }).filter(([, value]) => value !== undefined),
  );
  // The server's stderr goes on to ours, as the editor reads it, and into the log; our own
  // lines on stderr begin on a line of their own.
  let log: SessionLog | undefined;
  const serverStderr = relayStderr(
    // Cursor reads the server's stderr through a pipe, byte for byte; a person running the
    // proxy in a terminal sees it shown safely (R-FMT5).
    io.stderr.isTTY ? createTerminalSafeWriter(io.stderr) : io.stderr,
    io.stderr,
    { stderrAll: (events) => log?.stderrAll(events) },
  );
  log = openProxyLog(options, serverId, serverStderr.own, env);
  // The records of one turn of the event loop (every message of a chunk of input, and what
  // they lead to) are written together, with one write(2), when it ends: one write per message
  // cost a third of the proxy's time under load.
  let batching = false;
  const endBatch = (): void => {
    batching = false;
    log?.endChunk();
  };
  const batch = (): void => {
    if (batching || !log) return;
    batching = true;
    log.beginChunk([]);
    queueMicrotask(endBatch);
  };
  const proxyLog: McpProxyLog | undefined = log && {
    record(name, fields) {
      batch();
      // Every message is logged, without an fsync each; decisions are fsynced.
      if (name === "mcp_message") log.debug(fields, name);
      else log.decision(name, fields, MCP_RECORDS[name], { sync: "soon" });
    },
    messageRecord(members) {
      batch();
      log.debugRecord("mcp_message", members);
    },
  };
  const proxy = startMcpProxy({
    command,
    args,
    serverId,
    input: io.stdin as NodeJS.ReadableStream as import("node:stream").Readable,
    output: io.stdout as NodeJS.WritableStream as import("node:stream").Writable,
    serverStderr: serverStderr.stream,
    ...settings,
    toolTimeouts: options.toolTimeouts,
    ...(proxyLog ? { log: proxyLog } : {}),
    // Under a cursor-wrap run the token ties this proxy's log to the session's (logs show).
    context: { agent_token: env[AGENT_TOKEN_VARIABLE], pid: process.pid },
  });
  const onSignal = (signal: NodeJS.Signals): void => proxy.shutdown(`received ${signal}`);
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  try {
    const end = await proxy.done;
    serverStderr.end();
    if (end.reason.includes("could not be started"))
      printError(
        serverStderr.own,
        `mcp proxy: ${shownName(serverId)}: ${terminalSafe(end.reason)}`,
      );
    log?.close({ outcome: end.reason, flagged: end.exitCode !== 0, exit_code: end.exitCode });
    return end.exitCode;
  } finally {
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
  }
}

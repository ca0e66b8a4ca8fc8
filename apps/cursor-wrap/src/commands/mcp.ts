// `cursor-wrap mcp proxy | wrap | unwrap | status` (SPEC 7b): the MCP watchdog's commands. The
// proxy itself is `@cursor-wrap/mcp`; this wires it to the process's stdio, signals and a log.

import { existsSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { sep } from "node:path";
import { setFlagsFromString } from "node:v8";
import { terminalSafe } from "@cursor-wrap/events";
import { DEFAULT_RETENTION_MS, openSessionLog, type SessionLog } from "@cursor-wrap/logger";
import {
  type ConfigUpdate,
  cursorConfigPaths,
  MCP_DEFAULTS,
  MCP_RECORDS,
  type McpProxyLog,
  type ProxyInvocation,
  readConfigFile,
  serverStatuses,
  startMcpProxy,
  unwrapConfig,
  updateConfigFile,
  wrapConfig,
} from "@cursor-wrap/mcp";
import { AGENT_TOKEN_VARIABLE } from "@cursor-wrap/supervisor";
import { createTwoFilesPatch } from "diff";
import { defaultLogDir, durationOrOff } from "../options/flags.js";
import { parseSize, parseToolTimeouts } from "../options/units.js";
import { printError } from "../print-error.js";
import { createTerminalSafeWriter } from "../terminal-safe-writer.js";
import { UsageError } from "../usage-error.js";
import type { RunIo } from "./run.js";

/** The options of `cursor-wrap mcp …`, as given. */
export interface McpOptions {
  action: string;
  /** After `--`: the server's command and arguments (`proxy`). */
  server: string[];
  serverId?: string;
  requestTimeout?: string;
  toolTimeout?: string;
  initTimeout?: string;
  maxRequestTime?: string;
  maxLine?: string;
  logDir?: string;
  config?: string;
  global?: boolean;
  project?: string;
  dryRun?: boolean;
}

/** The proxy options given to `wrap`, to write into each entry. */
function proxyFlags(options: McpOptions): string[] {
  const flags: string[] = [];
  if (options.requestTimeout !== undefined) {
    durationOrOff(options.requestTimeout, "--request-timeout");
    flags.push("--request-timeout", options.requestTimeout);
  }
  if (options.toolTimeout !== undefined) {
    parseToolTimeouts(options.toolTimeout, "--tool-timeout");
    flags.push("--tool-timeout", options.toolTimeout);
  }
  if (options.initTimeout !== undefined) {
    durationOrOff(options.initTimeout, "--init-timeout");
    flags.push("--init-timeout", options.initTimeout);
  }
  if (options.maxRequestTime !== undefined) {
    durationOrOff(options.maxRequestTime, "--max-request-time");
    flags.push("--max-request-time", options.maxRequestTime);
  }
  return flags;
}

/**
 * A proxy's log rotates past this size (the earlier part kept once): a proxy runs as long as
 * Cursor does, and a chatty server must not fill the disk. 64 MiB holds about 200 000 messages.
 */
export const MCP_LOG_ROTATE_BYTES = 64 * 1024 * 1024;

/** The proxy's log, or none (with one warning) when the log directory cannot be written: the server must still run. */
function openProxyLog(
  options: McpOptions,
  serverId: string,
  io: RunIo,
  env: NodeJS.ProcessEnv,
): SessionLog | undefined {
  const dir = options.logDir ?? env.CURSOR_WRAP_LOG_DIR ?? defaultLogDir();
  try {
    return openSessionLog({
      dir,
      kind: "mcp",
      name: serverId,
      retentionMs: DEFAULT_RETENTION_MS,
      rotateBytes: MCP_LOG_ROTATE_BYTES,
      carry: { agent_token: env[AGENT_TOKEN_VARIABLE], server_id: serverId },
      console: { stream: io.stderr, level: "warn", skip: ["mcp_message"] },
    });
  } catch (error) {
    printError(io.stderr, `${(error as Error).message}; proxying without a log`);
    return undefined;
  }
}

/**
 * The proxy runs without V8's optimizing compiler (P7, BENCHMARKS.md). One proxy runs beside
 * every MCP server, for as long as Cursor does; compiling its hot paths costs about 6 MiB of
 * memory each under load, and buys small-message throughput that MCP traffic never uses (about
 * 70k messages/s remain; large messages are as fast, since splitting and parsing them is
 * native code). The p99 of a round trip drops too: no compile pauses.
 */
function preferMemoryOverPeakSpeed(): void {
  try {
    setFlagsFromString("--no-opt");
  } catch {
    // A Node that no longer takes flags at run time: the proxy runs as it would anyway.
  }
}

/** `cursor-wrap mcp proxy … -- <command> [args…]`: run one MCP server behind the watchdog. */
async function proxyCommand(
  options: McpOptions,
  io: RunIo,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const [command, ...args] = options.server;
  if (command === undefined) {
    throw new UsageError(
      "mcp proxy needs the server's command after --, as in cursor-wrap mcp proxy -- npx -y @modelcontextprotocol/server-everything",
    );
  }
  preferMemoryOverPeakSpeed();
  const serverId = options.serverId ?? command.split(/[/\\]/).pop() ?? command;
  const settings = {
    requestTimeoutMs:
      options.requestTimeout === undefined
        ? MCP_DEFAULTS.requestTimeoutMs
        : durationOrOff(options.requestTimeout, "--request-timeout"),
    initTimeoutMs:
      options.initTimeout === undefined
        ? MCP_DEFAULTS.initTimeoutMs
        : durationOrOff(options.initTimeout, "--init-timeout"),
    maxRequestTimeMs:
      options.maxRequestTime === undefined
        ? MCP_DEFAULTS.maxRequestTimeMs
        : durationOrOff(options.maxRequestTime, "--max-request-time"),
    toolTimeouts:
      options.toolTimeout === undefined
        ? {}
        : parseToolTimeouts(options.toolTimeout, "--tool-timeout"),
    maxLineBytes:
      options.maxLine === undefined
        ? MCP_DEFAULTS.maxLineBytes
        : parseSize(options.maxLine, "--max-line"),
  };
  const log = openProxyLog(options, serverId, io, env);
  const proxyLog: McpProxyLog | undefined = log && {
    record(name, fields) {
      // Every message is logged, without an fsync each; decisions are fsynced.
      if (name === "mcp_message") log.debug(fields, name);
      else log.decision(name, fields, MCP_RECORDS[name], { sync: "soon" });
    },
  };
  const shownStderr = io.stderr.isTTY ? createTerminalSafeWriter(io.stderr) : undefined;
  const proxy = startMcpProxy({
    command,
    args,
    serverId,
    input: io.stdin as NodeJS.ReadableStream as import("node:stream").Readable,
    output: io.stdout as NodeJS.WritableStream as import("node:stream").Writable,
    // Cursor reads the server's stderr through a pipe, byte for byte; a person running the
    // proxy in a terminal sees it shown safely (R-FMT5).
    serverStderr: shownStderr ?? "inherit",
    ...settings,
    ...(proxyLog ? { log: proxyLog } : {}),
    // Under a cursor-wrap run the token ties this proxy's log to the session's (logs show).
    context: { agent_token: env[AGENT_TOKEN_VARIABLE], pid: process.pid },
  });
  const onSignal = (signal: NodeJS.Signals): void => proxy.shutdown(`received ${signal}`);
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, onSignal);
  try {
    const end = await proxy.done;
    if (end.reason.includes("could not be started"))
      printError(io.stderr, `mcp proxy: ${shownName(serverId)}: ${terminalSafe(end.reason)}`);
    log?.close({ outcome: end.reason, flagged: end.exitCode !== 0, exit_code: end.exitCode });
    return end.exitCode;
  } finally {
    for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.off(signal, onSignal);
  }
}

/**
 * How a config entry runs the proxy: this Node and this cursor-wrap, by absolute paths, so it
 * works whatever the PATH is when Cursor starts the server. A copy in npx's cache is refused:
 * npm may delete it at any time.
 */
export function proxyInvocation(script: string = process.argv[1] ?? ""): ProxyInvocation {
  const path = realpathSync(script);
  if (path.includes(`${sep}_npx${sep}`)) {
    throw new UsageError(
      `cursor-wrap is running from npx's cache (${path}), which npm may clear at any time; install it (npm install -g cursor-wrap) and run mcp wrap again`,
    );
  }
  return { command: process.execPath, prefix: [path, "mcp", "proxy"] };
}

/** The config files a command works on: --config, --global, --project, else the project's in the current directory, else the user's. */
function configPaths(options: McpOptions, forStatus: boolean): string[] {
  if (options.config !== undefined) return [options.config];
  const paths = cursorConfigPaths(options.project ?? process.cwd());
  if (options.global) return [paths.global];
  if (options.project !== undefined) return [paths.project!];
  const found = [paths.project!, paths.global].filter((path) => existsSync(path));
  if (forStatus) return found.length > 0 ? found : [paths.global];
  return [found[0] ?? paths.global];
}

const home = (path: string): string =>
  terminalSafe(path.startsWith(homedir()) ? `~${path.slice(homedir().length)}` : path);

/**
 * A server name as printed: plain names as they are; any other (a flag-like `-h`, spaces,
 * escape sequences, bidi controls) quoted and escaped, so it reads as data and cannot act on
 * the terminal.
 */
export function shownName(name: string): string {
  return /^[A-Za-z0-9_.@+][A-Za-z0-9_.@+/:-]*$/.test(name)
    ? name
    : terminalSafe(JSON.stringify(name));
}

/** A file as printed: the path given, and the file changed when it is a link. */
function shownPath(update: ConfigUpdate): string {
  return update.target === undefined
    ? home(update.path)
    : `${home(update.path)} (a link: changed its target ${home(update.target)})`;
}

/** `mcp wrap` and `mcp unwrap`. */
function rewriteCommand(options: McpOptions, io: RunIo): number {
  const wrap = options.action === "wrap";
  const proxy = wrap ? { ...proxyInvocation(), options: proxyFlags(options) } : undefined;
  for (const path of configPaths(options, false)) {
    const update = updateConfigFile(
      path,
      (config) => (proxy ? wrapConfig(config, proxy) : unwrapConfig(config)),
      { dryRun: options.dryRun === true, restoreExactly: !wrap },
    );
    if (options.dryRun) {
      const file = update.target ?? path;
      // The file's text may hold raw control characters (JSON allows C1 and bidi controls).
      io.stdout.write(
        update.changed.length === 0
          ? `${shownPath(update)}: nothing to ${options.action}\n`
          : terminalSafe(
              createTwoFilesPatch(file, file, update.before, update.after, "", "(dry run)"),
            ),
      );
      continue;
    }
    const verb = wrap ? "wrapped" : "unwrapped";
    const names = (items: readonly string[]): string => items.map(shownName).join(", ");
    io.stdout.write(
      update.changed.length === 0
        ? `${shownPath(update)}: nothing to ${options.action}${update.skipped.length > 0 ? ` (${update.skipped.map((item) => `${shownName(item.name)}: ${item.why}`).join("; ")})` : ""}\n`
        : `${shownPath(update)}: ${verb} ${names(update.changed)}${update.backup ? ` (the previous file is in ${home(update.backup)})` : ""}\n`,
    );
    for (const item of update.skipped) {
      if (update.changed.length > 0) {
        io.stdout.write(`  left alone: ${shownName(item.name)} (${item.why})\n`);
      }
    }
    if (update.changed.length > 0) {
      io.stdout.write(
        "Restart Cursor (or reload its MCP servers) for the change to take effect.\n",
      );
    }
  }
  return 0;
}

/** `mcp status`: each server, and whether it runs through the watchdog. */
function statusCommand(options: McpOptions, io: RunIo): number {
  for (const path of configPaths(options, true)) {
    if (!existsSync(path)) {
      io.stdout.write(`${home(path)}: no MCP config\n`);
      continue;
    }
    const { config } = readConfigFile(path);
    const statuses = serverStatuses(config);
    io.stdout.write(
      `${home(path)}: ${statuses.length} server${statuses.length === 1 ? "" : "s"}\n`,
    );
    const shown = statuses.map((status) => shownName(status.name));
    const width = Math.max(0, ...shown.map((name) => name.length));
    for (const [index, status] of statuses.entries()) {
      const what =
        status.transport === "remote"
          ? `remote  not wrapped (a URL: nothing to proxy) ${terminalSafe(status.url ?? "")}`
          : status.transport === "unknown"
            ? "?       no command or url"
            : `stdio   ${status.wrapped ? "wrapped    " : "not wrapped"} ${terminalSafe([status.command, ...(status.args ?? [])].join(" "))}`;
      io.stdout.write(`  ${shown[index]!.padEnd(width)}  ${what}\n`);
    }
  }
  return 0;
}

/** Run `cursor-wrap mcp <action>`. */
export async function mcpCommand(
  options: McpOptions,
  io: RunIo,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  switch (options.action) {
    case "proxy":
      return proxyCommand(options, io, env);
    case "wrap":
    case "unwrap":
      return rewriteCommand(options, io);
    case "status":
      return statusCommand(options, io);
    default:
      throw new UsageError(
        `unknown mcp command ${JSON.stringify(options.action)}: proxy, wrap, unwrap or status`,
      );
  }
}

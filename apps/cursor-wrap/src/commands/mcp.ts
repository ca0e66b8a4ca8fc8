// `cursor-wrap mcp proxy | wrap | unwrap | status | run` (docs/requirements.md §7b): the MCP
// watchdog's commands. The proxy itself is `@cursor-wrap/mcp`; this wires it to the process's
// stdio, signals and a log, and the config commands to every client's files (`--client`); `run`
// is mcp-run.ts.

import { existsSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { resolve, sep } from "node:path";
import { setFlagsFromString } from "node:v8";
import { CursorWrapError } from "@cursor-wrap/errors";
import { terminalSafe } from "@cursor-wrap/events";
import { DEFAULT_RETENTION_MS, openSessionLog, type SessionLog } from "@cursor-wrap/logger";
import {
  CLIENT_NAMES,
  type ClientConfigFile,
  type ClientName,
  type ConfigUpdate,
  clientConfigFiles,
  configFileFor,
  MCP_DEFAULTS,
  MCP_RECORDS,
  type McpProxyLog,
  type ProxyInvocation,
  readConfigFile,
  recoverMcpSessions,
  sameEntry,
  serverStatuses,
  sessionHolders,
  startMcpProxy,
  unwrapConfig,
  updateConfigFile,
  wrapConfig,
} from "@cursor-wrap/mcp";
import { AGENT_TOKEN_VARIABLE } from "@cursor-wrap/supervisor";
import { createTwoFilesPatch } from "diff";
import { messageWithHint, SHARED_LOG_DIRECTORY_ADVICE } from "../error-hints.js";
import {
  CLIENT_LABELS,
  mcpSessionsDir,
  recoverDeadSessions,
  recoveryLines,
  shownEntries,
  shownFile,
  shownName,
} from "../mcp-sessions.js";
import { defaultLogDir, durationOrOff } from "../options/flags.js";
import { parseSize, parseToolTimeouts } from "../options/units.js";
import { printError } from "../print-error.js";
import { createTerminalSafeWriter } from "../terminal-safe-writer.js";
import { UsageError } from "../usage-error.js";
import type { RunIo } from "./run.js";

/** The options of `cursor-wrap mcp …`, as given. */
export interface McpOptions {
  action: string;
  /** After `--`: the server's command and arguments (`proxy`), the agent's (`run`). */
  server: string[];
  serverId?: string;
  requestTimeout?: string;
  toolTimeout?: string;
  initTimeout?: string;
  maxRequestTime?: string;
  maxLine?: string;
  logDir?: string;
  config?: string;
  /** `--client`: whose configs (`cursor`, `claude-code`, …). */
  client?: string;
  global?: boolean;
  project?: string;
  dryRun?: boolean;
}

/** The proxy options given to `wrap` or `run`, to write into each entry. */
export function proxyFlags(options: McpOptions): string[] {
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
      sharedDirectoryAdvice: SHARED_LOG_DIRECTORY_ADVICE,
      dir,
      kind: "mcp",
      name: serverId,
      retentionMs: DEFAULT_RETENTION_MS,
      rotateBytes: MCP_LOG_ROTATE_BYTES,
      carry: { agent_token: env[AGENT_TOKEN_VARIABLE], server_id: serverId },
      console: { stream: io.stderr, level: "warn", skip: ["mcp_message"] },
    });
  } catch (error) {
    const message = CursorWrapError.isInstance(error)
      ? messageWithHint(error)
      : (error as Error).message;
    printError(io.stderr, `${message}; proxying without a log`);
    return undefined;
  }
}

/**
 * The proxy runs without V8's optimizing compiler (P7, BENCHMARKS.md). One proxy runs beside
 * every MCP server, for as long as Cursor does; compiling its hot paths costs memory in each
 * (about 2.5 MiB under an ordinary load of tools/call round trips) and buys throughput and CPU
 * per message only at rates an editor never sends (about a third more at 64 in flight; large
 * messages are as fast, since splitting and parsing them is native code). The p99 of a
 * sequential round trip was no better with it: compile pauses.
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

/** A `--client` value, checked. */
export function clientOf(name: string): ClientName {
  if (!(CLIENT_NAMES as readonly string[]).includes(name)) {
    throw new UsageError(`unknown client ${JSON.stringify(name)}: ${CLIENT_NAMES.join(", ")}`);
  }
  return name as ClientName;
}

const exists = (file: ClientConfigFile): boolean => existsSync(file.path);

/**
 * The config files a client reads, that exist: `--config` (read as `--client` says, else as its
 * name says), else the client's user files (`--global`), a project's (`--project <dir>`), or
 * both (the project is the current directory).
 */
export function existingConfigFiles(
  options: Pick<McpOptions, "config" | "client" | "global" | "project">,
  env: NodeJS.ProcessEnv,
): ClientConfigFile[] {
  const client = options.client === undefined ? undefined : clientOf(options.client);
  const project = options.project ?? process.cwd();
  if (options.config !== undefined) {
    return [configFileFor(options.config, client, { project: resolve(project) })];
  }
  const files = clientConfigFiles(client ?? "cursor", { home: homedir(), project, env });
  const scoped = files.filter((file) =>
    options.global
      ? file.scope === "user"
      : options.project !== undefined
        ? file.scope === "project"
        : true,
  );
  return scoped.filter(exists);
}

/** The files `wrap`/`unwrap` change: without `--client`, Cursor's project file, else its user one. */
function filesToRewrite(options: McpOptions, env: NodeJS.ProcessEnv): ClientConfigFile[] {
  if (options.config !== undefined || options.client !== undefined) {
    const files = existingConfigFiles(options, env);
    if (files.length === 0) {
      const looked = clientConfigFiles(clientOf(options.client!), {
        home: homedir(),
        project: options.project ?? process.cwd(),
        env,
      });
      throw new UsageError(
        `no ${CLIENT_LABELS[clientOf(options.client!)]} MCP config found (looked for ${looked.map((file) => shownFile(file.path)).join(", ")}); give one with --config`,
      );
    }
    return files;
  }
  // Cursor's, as before --client: the current directory's project file, else the user's.
  const files = clientConfigFiles("cursor", {
    home: homedir(),
    project: options.project ?? process.cwd(),
    env,
  });
  const user = files.find((file) => file.scope === "user")!;
  const project = files.find((file) => file.scope === "project")!;
  if (options.global) return [user];
  if (options.project !== undefined) return [project];
  return [exists(project) ? project : user];
}

/** A file as printed: the path given, and the file changed when it is a link. */
function shownPath(update: ConfigUpdate): string {
  return update.target === undefined
    ? shownFile(update.path)
    : `${shownFile(update.path)} (a link: changed its target ${shownFile(update.target)})`;
}

/** The entries of a config that live sessions hold, and the sessions. */
function heldBySessions(path: string) {
  try {
    return sessionHolders(path).filter((holder) => holder.live);
  } catch {
    return [];
  }
}

/** `mcp wrap` and `mcp unwrap`. */
function rewriteCommand(options: McpOptions, io: RunIo, env: NodeJS.ProcessEnv): number {
  const wrap = options.action === "wrap";
  const proxy = wrap ? { ...proxyInvocation(), options: proxyFlags(options) } : undefined;
  const clients = new Set<ClientName>();
  for (const file of filesToRewrite(options, env)) {
    const holders = heldBySessions(file.path);
    const held = holders.flatMap((holder) => holder.entries);
    // Entries a running session wrapped are that session's to give back, when it ends.
    const only = (ref: { map: readonly (string | number)[]; name: string }) =>
      !held.some((entry) => sameEntry(entry, ref));
    const scope = { dialect: file.dialect, context: file.context, only };
    const update = updateConfigFile(
      file.path,
      (config) => (proxy ? wrapConfig(config, proxy, scope) : unwrapConfig(config, scope)),
      { dryRun: options.dryRun === true, restoreExactly: !wrap, syntax: file.dialect },
    );
    for (const holder of holders) {
      io.stdout.write(
        `${shownFile(file.path)}: a running MCP session (pid ${holder.pid}, ${terminalSafe(JSON.stringify(holder.command))}) holds ${shownEntries(holder.entries)} until it ends; left to it\n`,
      );
    }
    if (options.dryRun) {
      const shown = update.target ?? file.path;
      // The file's text may hold raw control characters (JSON allows C1 and bidi controls).
      io.stdout.write(
        update.changed.length === 0
          ? `${shownPath(update)}: nothing to ${options.action}\n`
          : terminalSafe(
              createTwoFilesPatch(shown, shown, update.before, update.after, "", "(dry run)"),
            ),
      );
      continue;
    }
    const verb = wrap ? "wrapped" : "unwrapped";
    const skipped = (item: { name: string; why: string; scope?: string }) =>
      `${shownEntries([{ map: [], name: item.name, ...(item.scope === undefined ? {} : { scope: item.scope }) }])}: ${item.why}`;
    io.stdout.write(
      update.changed.length === 0
        ? `${shownPath(update)}: nothing to ${options.action}${update.skipped.length > 0 ? ` (${update.skipped.map(skipped).join("; ")})` : ""}\n`
        : `${shownPath(update)}: ${verb} ${shownEntries(update.entries)}${update.backup ? ` (the previous file is in ${shownFile(update.backup)})` : ""}\n`,
    );
    if (update.changed.length > 0) {
      for (const item of update.skipped) io.stdout.write(`  left alone: ${skipped(item)}\n`);
      clients.add(file.client);
    }
  }
  for (const client of clients) {
    io.stdout.write(
      `Restart ${CLIENT_LABELS[client]} (or reload its MCP servers) for the change to take effect.\n`,
    );
  }
  return 0;
}

/** The config files `status` shows: the ones given, else every client's that exist. */
function filesToShow(options: McpOptions, env: NodeJS.ProcessEnv): ClientConfigFile[] {
  if (options.config !== undefined) return existingConfigFiles(options, env);
  if (options.client !== undefined) {
    const found = existingConfigFiles(options, env);
    if (found.length > 0) return found;
    const all = clientConfigFiles(clientOf(options.client), {
      home: homedir(),
      project: options.project ?? process.cwd(),
      env,
    });
    return all.slice(0, 1);
  }
  return CLIENT_NAMES.flatMap((client) => existingConfigFiles({ ...options, client }, env));
}

/** `mcp status`: each config found, each server, and whether it runs through the watchdog. */
function statusCommand(options: McpOptions, io: RunIo, env: NodeJS.ProcessEnv): number {
  for (const line of recoveryLines(recoverSafely())) io.stdout.write(`${line}\n`);
  const files = filesToShow(options, env);
  if (files.length === 0) {
    io.stdout.write(
      `no MCP config found (looked for ${CLIENT_NAMES.map((client) => CLIENT_LABELS[client]).join(", ")}'s in ${shownFile(homedir())} and ${shownFile(options.project ?? process.cwd())})\n`,
    );
    return 0;
  }
  for (const file of files) {
    const label = `${CLIENT_LABELS[file.client]} ${shownFile(file.path)}`;
    if (!existsSync(file.path)) {
      io.stdout.write(`${label}: no MCP config\n`);
      continue;
    }
    const { config } = readConfigFile(file.path, file.dialect);
    const statuses = serverStatuses(config, { dialect: file.dialect, context: file.context });
    io.stdout.write(`${label}: ${statuses.length} server${statuses.length === 1 ? "" : "s"}\n`);
    const holders = heldBySessions(file.path);
    const shown = statuses.map(
      (status) =>
        `${shownName(status.name)}${status.scope === undefined ? "" : ` (${terminalSafe(status.scope)})`}`,
    );
    const width = Math.max(0, ...shown.map((name) => name.length));
    for (const [index, status] of statuses.entries()) {
      const holder = holders.find((item) =>
        item.entries.some((entry) =>
          sameEntry(entry, { map: status.map ?? [], name: status.name }),
        ),
      );
      const what =
        status.transport === "remote"
          ? `remote  not wrapped (a URL: nothing to proxy) ${terminalSafe(status.url ?? "")}`
          : status.transport === "unknown"
            ? `?       not wrapped (${terminalSafe(status.why ?? "no command or url")})`
            : `stdio   ${status.wrapped ? "wrapped    " : "not wrapped"} ${terminalSafe([status.command, ...(status.args ?? [])].join(" "))}`;
      const session = holder
        ? ` [for the MCP session of pid ${holder.pid}, ${terminalSafe(JSON.stringify(holder.command))}, until it ends]`
        : "";
      io.stdout.write(`  ${shown[index]!.padEnd(width)}  ${what}${session}\n`);
      for (const note of status.notes ?? []) {
        io.stdout.write(`  ${"".padEnd(width)}  note: ${terminalSafe(note)}\n`);
      }
    }
  }
  return 0;
}

/** The recovery of dead sessions, which never stops a command. */
function recoverSafely() {
  try {
    return recoverMcpSessions(mcpSessionsDir());
  } catch {
    return [];
  }
}

/** Run `cursor-wrap mcp <action>`. */
export async function mcpCommand(
  options: McpOptions,
  io: RunIo,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  switch (options.action) {
    case "proxy":
      // Started beside every server by the client: it stays quick, and never writes configs.
      return proxyCommand(options, io, env);
    case "wrap":
    case "unwrap":
      for (const line of await recoverDeadSessions()) io.stderr.write(`cursor-wrap: ${line}\n`);
      return rewriteCommand(options, io, env);
    case "status":
      return statusCommand(options, io, env);
    case "run": {
      for (const line of await recoverDeadSessions()) io.stderr.write(`cursor-wrap: ${line}\n`);
      const { mcpRunCommand } = await import("./mcp-run.js");
      return mcpRunCommand(options, io, env);
    }
    default:
      throw new UsageError(
        `unknown mcp command ${JSON.stringify(options.action)}: proxy, wrap, unwrap, status or run`,
      );
  }
}

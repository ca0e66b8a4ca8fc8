// Cursor's MCP configuration (`~/.cursor/mcp.json`, `<project>/.cursor/mcp.json`), rewritten so
// each stdio server runs through the watchdog (R-MCP6): the command-replacement pattern. The
// transforms are pure; `updateConfigFile` applies one with a lock, a verified backup and an
// atomic replace.

import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { CursorWrapError } from "@cursor-wrap/errors";
import { processExists } from "@cursor-wrap/supervisor";

/** One server entry of `mcpServers`; keys other than these are kept as they are. */
export interface McpServerEntry {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  [key: string]: unknown;
}

/** How to run the proxy: a program and the arguments before the proxy's own options. */
export interface ProxyInvocation {
  /** An absolute path: the config must work whatever the PATH is when the server starts. */
  command: string;
  /** E.g. `["/…/cursor-wrap.js", "mcp", "proxy"]`. */
  prefix: readonly string[];
  /** Proxy options written into every wrapped entry (`--request-timeout 2m`, …). */
  options?: readonly string[];
}

/** Marks an entry whose original had no `args` at all (so `unwrap` gives none back). */
const NO_ARGS = "--original-without-args";

/** The config files: the user's, and a project's. */
export function cursorConfigPaths(project?: string): { global: string; project?: string } {
  return {
    global: join(homedir(), ".cursor", "mcp.json"),
    ...(project === undefined ? {} : { project: join(project, ".cursor", "mcp.json") }),
  };
}

/** Where the proxy's own arguments end and the server's command begins. */
function proxySplit(entry: McpServerEntry): { before: string[]; after: string[] } | undefined {
  const args = entry.args;
  if (!Array.isArray(args) || typeof entry.command !== "string") return undefined;
  const mcp = args.indexOf("mcp");
  if (mcp === -1 || args[mcp + 1] !== "proxy") return undefined;
  const runsCursorWrap = [entry.command, ...args.slice(0, mcp)].some((part) =>
    /cursor-wrap/.test(basename(String(part))),
  );
  const separator = args.indexOf("--", mcp + 2);
  if (!runsCursorWrap || separator === -1) return undefined;
  return { before: args.slice(0, separator), after: args.slice(separator + 1) };
}

/** Whether an entry already runs through the watchdog. */
export function isWrapped(entry: McpServerEntry): boolean {
  return proxySplit(entry) !== undefined;
}

/** How a server entry stands. */
export interface ServerStatus {
  name: string;
  /** `stdio`: a command; `remote`: a URL (never wrapped); `unknown`: neither. */
  transport: "stdio" | "remote" | "unknown";
  wrapped: boolean;
  /** The server's own command and arguments (inside the proxy, when wrapped). */
  command?: string;
  args?: string[];
  url?: string;
}

const serversOf = (config: unknown): Record<string, McpServerEntry> => {
  const servers = (config as { mcpServers?: unknown } | null)?.mcpServers;
  return servers !== null && typeof servers === "object" && !Array.isArray(servers)
    ? (servers as Record<string, McpServerEntry>)
    : {};
};

/** Every server of a config and whether it runs through the watchdog. */
export function serverStatuses(config: unknown): ServerStatus[] {
  return Object.entries(serversOf(config)).map(([name, entry]) => {
    if (typeof entry?.url === "string" && entry.command === undefined) {
      return { name, transport: "remote", wrapped: false, url: entry.url };
    }
    if (typeof entry?.command !== "string") return { name, transport: "unknown", wrapped: false };
    const split = proxySplit(entry);
    if (split) {
      const [command, ...args] = split.after;
      return { name, transport: "stdio", wrapped: true, command: command ?? "", args };
    }
    return {
      name,
      transport: "stdio",
      wrapped: false,
      command: entry.command,
      args: entry.args ?? [],
    };
  });
}

/** What a rewrite did. */
export interface RewriteResult {
  config: unknown;
  /** Entries changed. */
  changed: string[];
  /** Entries left alone, and why. */
  skipped: Array<{ name: string; why: string }>;
}

/**
 * Run each stdio server through the proxy: `command` becomes the proxy's program, and `args`
 * its arguments, `--`, then the original command and arguments. `env`, other keys, remote
 * (url) servers and entries already wrapped are left as they are.
 */
export function wrapConfig(config: unknown, proxy: ProxyInvocation): RewriteResult {
  const servers = serversOf(config);
  const changed: string[] = [];
  const skipped: RewriteResult["skipped"] = [];
  const next: Record<string, McpServerEntry> = {};
  for (const [name, entry] of Object.entries(servers)) {
    if (typeof entry?.command !== "string") {
      next[name] = entry;
      skipped.push({
        name,
        why: typeof entry?.url === "string" ? "a remote (url) server" : "no command",
      });
      continue;
    }
    if (isWrapped(entry)) {
      next[name] = entry;
      skipped.push({ name, why: "already wrapped" });
      continue;
    }
    const hadArgs = Object.hasOwn(entry, "args");
    const original = hadArgs && Array.isArray(entry.args) ? entry.args.map(String) : [];
    const wrappedArgs = [
      ...proxy.prefix,
      "--server-id",
      name,
      ...(proxy.options ?? []),
      ...(hadArgs ? [] : [NO_ARGS]),
      "--",
      entry.command,
      ...original,
    ];
    // Keys keep their order: `command` and `args` are replaced where they are.
    next[name] = { ...entry, command: proxy.command, args: wrappedArgs };
    changed.push(name);
  }
  return { config: { ...(config as object), mcpServers: next }, changed, skipped };
}

/** Give each wrapped entry back its own command and arguments, exactly; the rest is untouched. */
export function unwrapConfig(config: unknown): RewriteResult {
  const servers = serversOf(config);
  const changed: string[] = [];
  const skipped: RewriteResult["skipped"] = [];
  const next: Record<string, McpServerEntry> = {};
  for (const [name, entry] of Object.entries(servers)) {
    const split = entry && typeof entry === "object" ? proxySplit(entry) : undefined;
    const [command, ...args] = split?.after ?? [];
    if (!split || command === undefined) {
      next[name] = entry;
      skipped.push({ name, why: "not wrapped" });
      continue;
    }
    // Rebuilt key by key, so the entry's keys keep their order (and the file its text).
    const restored: McpServerEntry = {};
    for (const [key, value] of Object.entries(entry)) {
      if (key === "command") restored.command = command;
      else if (key === "args") {
        if (!split.before.includes(NO_ARGS)) restored.args = args;
      } else restored[key] = value;
    }
    next[name] = restored;
    changed.push(name);
  }
  return { config: { ...(config as object), mcpServers: next }, changed, skipped };
}

/** A config file that cannot be used, and why. */
export class McpConfigError extends CursorWrapError {
  static override readonly marker: string = "cursor-wrap.error.mcp-config";
  readonly path: string;
  constructor(path: string, detail: string, options: { cause?: unknown } = {}) {
    super("MCP_CONFIG", `${path}: ${detail}`, options);
    this.path = path;
  }
}

/** Indentation of a JSON text (what its first indented line uses), to write it back alike. */
function indentOf(text: string): string | number {
  const match = /\n([ \t]+)\S/.exec(text);
  return match ? match[1]! : 2;
}

/** Take the lock beside a config (a file created exclusively, holding our pid); stale ones are taken over. */
function lock(path: string): () => void {
  const lockPath = `${path}.cursor-wrap-lock`;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(lockPath, "wx", 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => {
        try {
          unlinkSync(lockPath);
        } catch {
          // gone already
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = Number(readFileSync(lockPath, "utf8").trim());
      if (Number.isSafeInteger(holder) && holder > 0 && processExists(holder)) {
        throw new McpConfigError(
          path,
          `another cursor-wrap (pid ${holder}) is changing this file; try again when it is done (or remove ${lockPath} if it is not running)`,
        );
      }
      unlinkSync(lockPath);
    }
  }
  throw new McpConfigError(path, `cannot take the lock ${lockPath}`);
}

/** What {@link updateConfigFile} did (or, with `dryRun`, would do). */
export interface ConfigUpdate extends Omit<RewriteResult, "config"> {
  path: string;
  before: string;
  after: string;
  /** Where the original was copied (not with `dryRun`, nor when nothing changed). */
  backup?: string;
}

/** Read a config file as JSON, with a clear error for a missing or broken one. */
export function readConfigFile(path: string): { text: string; config: unknown } {
  if (!existsSync(path))
    throw new McpConfigError(
      path,
      "no such file (Cursor keeps MCP servers in ~/.cursor/mcp.json or <project>/.cursor/mcp.json)",
    );
  const text = readFileSync(path, "utf8");
  try {
    return { text, config: JSON.parse(text) as unknown };
  } catch (error) {
    throw new McpConfigError(path, `not valid JSON (${(error as Error).message})`, {
      cause: error,
    });
  }
}

/**
 * Apply a rewrite to a config file: under a lock beside it, with a backup that is read back
 * and compared before anything changes, and an atomic replace (a temporary file renamed over
 * it). With `dryRun`, nothing is written: the result says what would change.
 */
export function updateConfigFile(
  path: string,
  rewrite: (config: unknown) => RewriteResult,
  options: { dryRun?: boolean } = {},
): ConfigUpdate {
  const release = options.dryRun ? () => {} : lock(path);
  try {
    const { text, config } = readConfigFile(path);
    const result = rewrite(config);
    const after = `${JSON.stringify(result.config, null, indentOf(text))}${text.endsWith("\n") ? "\n" : ""}`;
    const update: ConfigUpdate = {
      path,
      before: text,
      after,
      changed: result.changed,
      skipped: result.skipped,
    };
    if (options.dryRun || result.changed.length === 0) return update;
    const backup = `${path}.cursor-wrap-backup`;
    writeFileSync(backup, text, { mode: 0o600 });
    if (readFileSync(backup, "utf8") !== text) {
      throw new McpConfigError(
        path,
        `the backup ${backup} did not read back as written; nothing was changed`,
      );
    }
    const temporary = join(dirname(path), `.${basename(path)}.cursor-wrap-${process.pid}.tmp`);
    const fd = openSync(temporary, "w", statSync(path).mode & 0o777);
    try {
      writeSync(fd, after);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
    return { ...update, backup };
  } finally {
    release();
  }
}

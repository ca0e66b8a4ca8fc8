// Cursor's MCP configuration (`~/.cursor/mcp.json`, `<project>/.cursor/mcp.json`), rewritten so
// each stdio server runs through the watchdog (R-MCP6): the command-replacement pattern. The
// transforms here are pure; `updateConfigFile` (config-file.ts) applies one to a file.
//
// Server names are the config's keys, so anything may be one (`__proto__`, `--`, `-h`, escape
// sequences): objects are built with `Object.fromEntries` (own keys, never a prototype setter)
// and a name travels to the proxy as one argument, `--server-id=<name>`, never parsed as a flag.

import { homedir } from "node:os";
import { basename, join } from "node:path";

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
  // The first `--` after `proxy` ends the proxy's options (a name is inside `--server-id=…`).
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
  const next: Array<[string, McpServerEntry]> = [];
  for (const [name, entry] of Object.entries(servers)) {
    if (typeof entry?.command !== "string") {
      next.push([name, entry]);
      skipped.push({
        name,
        why: typeof entry?.url === "string" ? "a remote (url) server" : "no command",
      });
      continue;
    }
    if (isWrapped(entry)) {
      next.push([name, entry]);
      skipped.push({ name, why: "already wrapped" });
      continue;
    }
    const hadArgs = Object.hasOwn(entry, "args");
    const original = hadArgs && Array.isArray(entry.args) ? entry.args.map(String) : [];
    const wrappedArgs = [
      ...proxy.prefix,
      `--server-id=${name}`,
      ...(proxy.options ?? []),
      ...(hadArgs ? [] : [NO_ARGS]),
      "--",
      entry.command,
      ...original,
    ];
    // Keys keep their order: `command` and `args` are replaced where they are.
    next.push([name, { ...entry, command: proxy.command, args: wrappedArgs }]);
    changed.push(name);
  }
  return {
    config: { ...(config as object), mcpServers: Object.fromEntries(next) },
    changed,
    skipped,
  };
}

/** Give each wrapped entry back its own command and arguments, exactly; the rest is untouched. */
export function unwrapConfig(config: unknown): RewriteResult {
  const servers = serversOf(config);
  const changed: string[] = [];
  const skipped: RewriteResult["skipped"] = [];
  const next: Array<[string, McpServerEntry]> = [];
  for (const [name, entry] of Object.entries(servers)) {
    const split = entry && typeof entry === "object" ? proxySplit(entry) : undefined;
    const [command, ...args] = split?.after ?? [];
    if (!split || command === undefined) {
      next.push([name, entry]);
      skipped.push({ name, why: "not wrapped" });
      continue;
    }
    // Rebuilt key by key, so the entry's keys keep their order (and the file its text).
    const restored: Array<[string, unknown]> = [];
    for (const [key, value] of Object.entries(entry)) {
      if (key === "command") restored.push([key, command]);
      else if (key === "args") {
        if (!split.before.includes(NO_ARGS)) restored.push([key, args]);
      } else restored.push([key, value]);
    }
    next.push([name, Object.fromEntries(restored) as McpServerEntry]);
    changed.push(name);
  }
  return {
    config: { ...(config as object), mcpServers: Object.fromEntries(next) },
    changed,
    skipped,
  };
}

// Each MCP client's config dialect (seed F-003): where its server maps are in the file, how an
// entry says how its server runs, and whether the file may hold comments. A dialect only reads;
// the rewrite itself (config.ts) and the file handling (config-file.ts) are the same for all.
//
// Shapes, from each client's documentation (the fixtures in __fixtures__/clients say which page):
// - Cursor, Claude Desktop, Windsurf, Claude Code's .mcp.json: `mcpServers: { name: entry }`,
//   an entry `{ command, args?, env? }` for stdio, `{ url }` (Windsurf: `serverUrl`) for remote.
// - Claude Code's ~/.claude.json: the same map at the top (user scope) and in
//   `projects["<absolute project path>"].mcpServers` (local scope); `type` may say stdio/http/sse.
// - VS Code's mcp.json: `servers: { name: { type: "stdio", command, args?, env? } }` or
//   `{ type: "http" | "sse", url }`, beside `inputs`; JSON with comments.
// - Zed's settings.json: `context_servers: { name: { command, args?, env? } }` (older:
//   `{ command: { path, args, env } }`), `{ url }` for remote, `{ settings }` alone for a server
//   an extension provides; JSON with comments and trailing commas.

import { realpathSync } from "node:fs";
import type { JsonPath } from "./json-text.js";

/** The MCP clients whose configs cursor-wrap knows (seed F-001's names). */
export type ClientName =
  | "cursor"
  | "claude-code"
  | "claude-desktop"
  | "vscode"
  | "windsurf"
  | "zed";

/** Every client, in the order help lists them. */
export const CLIENT_NAMES: readonly ClientName[] = [
  "cursor",
  "claude-code",
  "claude-desktop",
  "vscode",
  "windsurf",
  "zed",
];

/** What a dialect needs to know beyond the file: the project it is used for. */
export interface DialectContext {
  /** The project directory (absolute), for configs with per-project maps (~/.claude.json). */
  project?: string;
}

/** One map of servers in a config file. */
export interface ServerMap {
  /** Where it is: `["mcpServers"]`, `["projects", "/home/me/app", "mcpServers"]`. */
  path: JsonPath;
  /** How it is named for people when a file has more than one (`project /home/me/app`). */
  scope?: string;
}

/** How one entry runs its server, and where its command and arguments are (relative to it). */
export type EntryForm =
  | {
      transport: "stdio";
      command: string;
      /** The arguments as written; `undefined` when the entry has none at all. */
      args: readonly string[] | undefined;
      at: { command: JsonPath; args: JsonPath };
    }
  | { transport: "remote"; url: string }
  | { transport: "unknown"; why: string };

/** A client's config dialect. */
export interface ConfigDialect {
  /** A stable name, recorded in session journals (`mcp-servers`, `claude-code-user`, …). */
  id: DialectId;
  /** Comments and trailing commas allowed. */
  comments: boolean;
  /** The server maps of a document (only those present). */
  serverMaps(document: unknown, context: DialectContext): ServerMap[];
  /** How an entry runs. */
  entryForm(entry: unknown): EntryForm;
  /** What people should know about an entry (VS Code's `${input:…}`), if anything. */
  notes(entry: unknown): string[];
}

/** The names of the dialects. */
export type DialectId = "mcp-servers" | "claude-code-user" | "vscode" | "zed";

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** The value at `key` of an object, own keys only (a `__proto__` key is data). */
export function ownValue(value: unknown, key: string): unknown {
  return isObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
}

const REMOTE_TYPES = new Set(["http", "sse", "streamable-http", "streamableHttp", "ws"]);

/**
 * A stdio entry, whose `args` (in `holder`) are a list of strings or absent. Any other `args`
 * (`"x"`, `[8080]`, `null`) leave the entry alone: wrapping would write them back as strings,
 * and `unwrap` could not give them back as they were written (R-MCP6).
 */
function stdioForm(
  command: string,
  holder: Record<string, unknown>,
  at: { command: JsonPath; args: JsonPath },
): EntryForm {
  // An empty command starts nothing, wrapped or not: left as it is, and said.
  if (command.trim() === "") return { transport: "unknown", why: "an empty command" };
  // A parsed config holds no `undefined`: none means no `args` key at all.
  const args = ownValue(holder, "args");
  if (args === undefined) return { transport: "stdio", command, args: undefined, at };
  if (Array.isArray(args) && args.every((arg) => typeof arg === "string")) {
    return { transport: "stdio", command, args, at };
  }
  return { transport: "unknown", why: NOT_STRING_ARGS };
}

/** Why an entry whose `args` are not a list of strings is left as it is. */
const NOT_STRING_ARGS =
  "its args are not a list of strings (left as written: unwrap could not give them back exactly)";

/** `{ command, args }` / `{ url }` entries: Cursor, Claude Code, Claude Desktop, VS Code, Windsurf. */
function standardForm(entry: unknown): EntryForm {
  if (!isObject(entry)) return { transport: "unknown", why: "not an object" };
  const type = ownValue(entry, "type");
  const url = ownValue(entry, "url") ?? ownValue(entry, "serverUrl");
  const command = ownValue(entry, "command");
  if (typeof type === "string" && REMOTE_TYPES.has(type)) {
    return { transport: "remote", url: typeof url === "string" ? url : "" };
  }
  if (typeof command === "string") {
    return stdioForm(command, entry, { command: ["command"], args: ["args"] });
  }
  if (typeof url === "string") return { transport: "remote", url };
  return { transport: "unknown", why: "no command or url" };
}

/** Zed's `context_servers` entries: today's flat form, the older `command: { path }` form. */
function zedForm(entry: unknown): EntryForm {
  if (!isObject(entry)) return { transport: "unknown", why: "not an object" };
  const command = ownValue(entry, "command");
  if (isObject(command) && typeof ownValue(command, "path") === "string") {
    return stdioForm(ownValue(command, "path") as string, command, {
      command: ["command", "path"],
      args: ["command", "args"],
    });
  }
  if (typeof command === "string") return standardForm(entry);
  const url = ownValue(entry, "url");
  if (typeof url === "string") return { transport: "remote", url };
  if (ownValue(entry, "source") === "extension" || ownValue(entry, "settings") !== undefined) {
    return { transport: "unknown", why: "provided by a Zed extension, which starts it" };
  }
  return { transport: "unknown", why: "no command or url" };
}

/** The strings of a value, deeply (to look for variable references). */
function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (isObject(value)) return Object.values(value).flatMap(stringsOf);
  return [];
}

const mapAt =
  (key: string) =>
  (document: unknown): ServerMap[] =>
    isObject(ownValue(document, key)) ? [{ path: [key] }] : [];

/** `mcpServers` at the top: Cursor, Claude Desktop, Windsurf, Claude Code's `.mcp.json`. */
export const MCP_SERVERS_DIALECT: ConfigDialect = {
  id: "mcp-servers",
  comments: false,
  serverMaps: mapAt("mcpServers"),
  entryForm: standardForm,
  notes: () => [],
};

/**
 * Claude Code's `~/.claude.json`: the user's servers at the top, and the servers of the project
 * in the context under `projects["<absolute path>"]` (its key as Claude Code wrote it: the path,
 * or the same directory's real path).
 */
export const CLAUDE_CODE_USER_DIALECT: ConfigDialect = {
  id: "claude-code-user",
  comments: false,
  serverMaps(document, context) {
    const maps = mapAt("mcpServers")(document);
    const projects = ownValue(document, "projects");
    if (context.project === undefined || !isObject(projects)) return maps;
    for (const key of projectKeys(context.project)) {
      if (isObject(ownValue(ownValue(projects, key), "mcpServers"))) {
        maps.push({ path: ["projects", key, "mcpServers"], scope: `project ${key}` });
        break;
      }
    }
    return maps;
  },
  entryForm: standardForm,
  notes: () => [],
};

/** The keys a project may have in `~/.claude.json`: its path, and its real path if different. */
function projectKeys(project: string): string[] {
  const keys = [project];
  try {
    const real = realpathSync(project);
    if (real !== project) keys.push(real);
  } catch {
    // not on this machine (a fixture's path): the path as given
  }
  return keys;
}

/** How VS Code's input variables start: `${input:id}`, which VS Code prompts the user for. */
const INPUT_VARIABLE = "$" + "{input:";

/** VS Code's `mcp.json`: `servers`, JSON with comments; `${input:…}` is VS Code's to ask for. */
export const VSCODE_DIALECT: ConfigDialect = {
  id: "vscode",
  comments: true,
  serverMaps: mapAt("servers"),
  entryForm: standardForm,
  notes(entry) {
    return stringsOf(entry).some((text) => text.includes(INPUT_VARIABLE))
      ? [`its ${INPUT_VARIABLE}…} values are VS Code's to ask for; left as written`]
      : [];
  },
};

/** Zed's `settings.json`: `context_servers`, JSON with comments and trailing commas. */
export const ZED_DIALECT: ConfigDialect = {
  id: "zed",
  comments: true,
  serverMaps: mapAt("context_servers"),
  entryForm: zedForm,
  notes: () => [],
};

/** Every dialect by its id (session journals name theirs). */
export const DIALECTS: Readonly<Record<DialectId, ConfigDialect>> = {
  "mcp-servers": MCP_SERVERS_DIALECT,
  "claude-code-user": CLAUDE_CODE_USER_DIALECT,
  vscode: VSCODE_DIALECT,
  zed: ZED_DIALECT,
};

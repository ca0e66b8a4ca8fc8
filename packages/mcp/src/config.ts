// MCP client configs, rewritten so each stdio server runs through the watchdog (R-MCP6): the
// command-replacement pattern, the same for every client; where a client keeps its servers and
// how an entry says what it runs is its dialect (config-dialects.ts; Cursor's by default). The
// transforms here are pure: they give the new document and the edits that make it from the
// old text; `updateConfigFile` (config-file.ts) applies them to a file.
//
// Server names are the config's keys, so anything may be one (`__proto__`, `--`, `-h`, escape
// sequences): objects are built with `Object.fromEntries` (own keys, never a prototype setter)
// and a name travels to the proxy as one argument, `--server-id=<name>`, never parsed as a flag.

import { homedir } from "node:os";
import { basename, join } from "node:path";
import {
  type ConfigDialect,
  type DialectContext,
  MCP_SERVERS_DIALECT,
  ownValue,
  type ServerMap,
} from "./config-dialects.js";
import type { JsonEdit, JsonPath } from "./json-text.js";

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
function proxySplit(
  command: unknown,
  args: unknown,
): { before: string[]; after: string[] } | undefined {
  if (!Array.isArray(args) || typeof command !== "string") return undefined;
  const words = args.map(String);
  const mcp = words.indexOf("mcp");
  if (mcp === -1 || words[mcp + 1] !== "proxy") return undefined;
  const runsCursorWrap = [command, ...words.slice(0, mcp)].some((part) =>
    /cursor-wrap/.test(basename(part)),
  );
  // The first `--` after `proxy` ends the proxy's options (a name is inside `--server-id=…`).
  const separator = words.indexOf("--", mcp + 2);
  if (!runsCursorWrap || separator === -1) return undefined;
  return { before: words.slice(0, separator), after: words.slice(separator + 1) };
}

/** Whether an entry (`{ command, args }`) already runs through the watchdog. */
export function isWrapped(entry: McpServerEntry): boolean {
  return proxySplit(entry?.command, entry?.args) !== undefined;
}

/** One entry of a config: the map it is in and its name. */
export interface EntryRef {
  /** The map's place in the document (`["mcpServers"]`). */
  map: JsonPath;
  name: string;
  /** The map's name for people, when a file has more than one. */
  scope?: string;
}

/** Whether two references name the same entry. */
export function sameEntry(first: EntryRef, second: EntryRef): boolean {
  return first.name === second.name && JSON.stringify(first.map) === JSON.stringify(second.map);
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
  /** Why an `unknown` entry is left alone. */
  why?: string;
  /** The entry's map, and its name for people when the file has more than one. */
  map?: JsonPath;
  scope?: string;
  /** What people should know about the entry (VS Code's `${input:…}`). */
  notes?: string[];
}

/** Which dialect a transform reads, for which project; by default Cursor's `mcpServers`. */
export interface RewriteScope {
  dialect?: ConfigDialect;
  context?: DialectContext;
  /** Only these entries (a session unwraps what it wrapped, nothing else). */
  only?: (entry: EntryRef) => boolean;
  /** These maps instead of the dialect's (an entry of another project's map, by reference). */
  maps?: readonly ServerMap[];
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** Every entry of every server map of a document, with how it runs. */
function entriesOf(config: unknown, scope: RewriteScope) {
  const dialect = scope.dialect ?? MCP_SERVERS_DIALECT;
  const maps = scope.maps ?? dialect.serverMaps(config, scope.context ?? {});
  return maps.flatMap((map) => {
    let servers: unknown = config;
    for (const key of map.path) servers = ownValue(servers, String(key));
    if (!isObject(servers)) return [];
    return Object.entries(servers).map(([name, entry]) => ({
      ref: { map: map.path, name, ...(map.scope === undefined ? {} : { scope: map.scope }) },
      entry,
      form: dialect.entryForm(entry),
      notes: dialect.notes(entry),
    }));
  });
}

/** Every server of a config and whether it runs through the watchdog. */
export function serverStatuses(config: unknown, scope: RewriteScope = {}): ServerStatus[] {
  return entriesOf(config, scope).map(({ ref, form, notes }): ServerStatus => {
    const where = {
      map: ref.map,
      ...(ref.scope === undefined ? {} : { scope: ref.scope }),
      ...(notes.length === 0 ? {} : { notes }),
    };
    switch (form.transport) {
      case "remote":
        return { name: ref.name, transport: "remote", wrapped: false, url: form.url, ...where };
      case "unknown":
        return { name: ref.name, transport: "unknown", wrapped: false, why: form.why, ...where };
      case "stdio": {
        const split = proxySplit(form.command, form.args);
        if (split) {
          const [command, ...args] = split.after;
          return {
            name: ref.name,
            transport: "stdio",
            wrapped: true,
            command: command ?? "",
            args,
            ...where,
          };
        }
        return {
          name: ref.name,
          transport: "stdio",
          wrapped: false,
          command: form.command,
          args: [...(form.args ?? [])],
          ...where,
        };
      }
      default: {
        const never: never = form;
        return never;
      }
    }
  });
}

/** What a rewrite did. */
export interface RewriteResult {
  /** The document after the rewrite. */
  config: unknown;
  /** Entries changed, by name. */
  changed: string[];
  /** The entries changed, with their maps. */
  entries: EntryRef[];
  /** Entries left alone, and why. */
  skipped: Array<{ name: string; why: string; scope?: string }>;
  /** The edits that make the new document from the old text (every other byte stays). */
  edits: JsonEdit[];
}

/**
 * `value` with the value at `path` replaced by `next` (`undefined` removes it): a copy along
 * the path, objects rebuilt with own keys in their order (a new key goes last, as it is
 * inserted in the text).
 */
function withValue(value: unknown, path: JsonPath, next: unknown): unknown {
  if (path.length === 0) return next;
  const [head, ...rest] = path;
  if (Array.isArray(value) && typeof head === "number") {
    const copy = [...value];
    copy[head] = withValue(copy[head], rest, next);
    return copy;
  }
  const entries: Array<[string, unknown]> = isObject(value) ? Object.entries(value) : [];
  const key = String(head);
  const index = entries.findIndex(([name]) => name === key);
  const child = withValue(index === -1 ? undefined : entries[index]![1], rest, next);
  if (child === undefined && rest.length === 0) {
    if (index !== -1) entries.splice(index, 1);
  } else if (index === -1) entries.push([key, child]);
  else entries[index] = [key, child];
  return Object.fromEntries(entries);
}

/** Apply edits to a document value (what the edited text must parse to). */
function applyToValue(config: unknown, edits: readonly JsonEdit[]): unknown {
  return edits.reduce((value, edit) => withValue(value, edit.path, edit.value), config);
}

/**
 * Run each stdio server through the proxy: `command` becomes the proxy's program, and `args`
 * its arguments, `--`, then the original command and arguments (variable references such as
 * `${env:TOKEN}` move along as written: every client expands them in `args` as in `command`).
 * `env`, other keys, remote (url) servers and entries already wrapped are left as they are.
 */
export function wrapConfig(
  config: unknown,
  proxy: ProxyInvocation,
  scope: RewriteScope = {},
): RewriteResult {
  const changed: string[] = [];
  const entries: EntryRef[] = [];
  const skipped: RewriteResult["skipped"] = [];
  const edits: JsonEdit[] = [];
  for (const { ref, form } of entriesOf(config, scope)) {
    if (scope.only && !scope.only(ref)) continue;
    const where = ref.scope === undefined ? {} : { scope: ref.scope };
    if (form.transport !== "stdio") {
      skipped.push({
        name: ref.name,
        why: form.transport === "remote" ? "a remote (url) server" : form.why,
        ...where,
      });
      continue;
    }
    if (proxySplit(form.command, form.args)) {
      skipped.push({ name: ref.name, why: "already wrapped", ...where });
      continue;
    }
    const wrappedArgs = [
      ...proxy.prefix,
      `--server-id=${ref.name}`,
      ...(proxy.options ?? []),
      ...(form.args === undefined ? [NO_ARGS] : []),
      "--",
      form.command,
      ...(form.args ?? []),
    ];
    const base = [...ref.map, ref.name];
    edits.push(
      { path: [...base, ...form.at.command], value: proxy.command },
      { path: [...base, ...form.at.args], value: wrappedArgs },
    );
    changed.push(ref.name);
    entries.push(ref);
  }
  return { config: applyToValue(config, edits), changed, entries, skipped, edits };
}

/** Give each wrapped entry back its own command and arguments, exactly; the rest is untouched. */
export function unwrapConfig(config: unknown, scope: RewriteScope = {}): RewriteResult {
  const changed: string[] = [];
  const entries: EntryRef[] = [];
  const skipped: RewriteResult["skipped"] = [];
  const edits: JsonEdit[] = [];
  for (const { ref, form } of entriesOf(config, scope)) {
    if (scope.only && !scope.only(ref)) continue;
    const split = form.transport === "stdio" ? proxySplit(form.command, form.args) : undefined;
    const [command, ...args] = split?.after ?? [];
    if (form.transport !== "stdio" || !split || command === undefined) {
      skipped.push({
        name: ref.name,
        why: "not wrapped",
        ...(ref.scope === undefined ? {} : { scope: ref.scope }),
      });
      continue;
    }
    const base = [...ref.map, ref.name];
    edits.push(
      { path: [...base, ...form.at.command], value: command },
      {
        path: [...base, ...form.at.args],
        value: split.before.includes(NO_ARGS) ? undefined : args,
      },
    );
    changed.push(ref.name);
    entries.push(ref);
  }
  return { config: applyToValue(config, edits), changed, entries, skipped, edits };
}

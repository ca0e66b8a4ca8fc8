// How each MCP client reads its config, for the test kit's fake clients: which files, which
// maps, which entries are stdio servers, and which variable references the client expands
// itself (Claude Code `${VAR}` and `${VAR:-default}`; Cursor `${env:NAME}`, `${userHome}`,
// `${workspaceFolder}`; Windsurf `${env:NAME}`; VS Code `${env:NAME}`, `${userHome}`,
// `${workspaceFolder}`, and `${input:…}`, which it would ask the user for; Zed and Claude
// Desktop none). Written from the clients' documentation, independently of cursor-wrap's own
// config code, so a test with it checks cursor-wrap against the clients, not against itself.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "jsonc-parser";

/** The clients the fake client can play. */
export type FakeClientName =
  | "cursor"
  | "claude-code"
  | "claude-desktop"
  | "vscode"
  | "windsurf"
  | "zed";

/** A stdio server as the client would start it. */
export interface ClientServer {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Why the client would not start it now (VS Code: an input to ask for). */
  skip?: string;
}

/** Where the client looks: home, project directory, variables, platform. */
export interface ClientPlace {
  home: string;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  platform?: NodeJS.Platform;
}

type Entry = Record<string, unknown>;

function read(path: string, comments: boolean): Entry | undefined {
  if (!existsSync(path)) return undefined;
  const text = readFileSync(path, "utf8");
  return (comments ? parse(text, [], { allowTrailingComma: true }) : JSON.parse(text)) as Entry;
}

const mapOf = (value: unknown): Record<string, Entry> =>
  value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, Entry>)
    : {};

/** Expand a client's variable references in a string. */
function expander(client: FakeClientName, place: ClientPlace): (text: string) => string {
  const env = (name: string): string => place.env[name] ?? "";
  switch (client) {
    case "claude-code":
      return (text) =>
        text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_, name, fallback) =>
          place.env[name] !== undefined ? env(name) : (fallback ?? ""),
        );
    case "cursor":
    case "vscode":
      return (text) =>
        text
          .replace(/\$\{env:([^}]+)\}/g, (_, name) => env(name))
          .replace(/\$\{userHome\}/g, place.home)
          .replace(/\$\{workspaceFolder\}/g, place.cwd);
    case "windsurf":
      return (text) => text.replace(/\$\{env:([^}]+)\}/g, (_, name) => env(name));
    case "claude-desktop":
    case "zed":
      return (text) => text;
    default: {
      const never: never = client;
      return never;
    }
  }
}

/** The server maps a client reads, in the order it reads them (later ones win a name). */
function mapsOf(client: FakeClientName, place: ClientPlace): Array<Record<string, Entry>> {
  const { home, cwd } = place;
  const configHome = place.env.XDG_CONFIG_HOME ?? join(home, ".config");
  const appData = (name: string): string =>
    (place.platform ?? process.platform) === "darwin"
      ? join(home, "Library", "Application Support", name)
      : join(configHome, name);
  switch (client) {
    case "cursor":
      return [
        mapOf(read(join(home, ".cursor", "mcp.json"), false)?.mcpServers),
        mapOf(read(join(cwd, ".cursor", "mcp.json"), false)?.mcpServers),
      ];
    case "claude-code": {
      const user = read(join(home, ".claude.json"), false);
      return [
        mapOf(user?.mcpServers),
        mapOf(read(join(cwd, ".mcp.json"), false)?.mcpServers),
        mapOf(mapOf(mapOf(user?.projects)[cwd])?.mcpServers),
      ];
    }
    case "claude-desktop":
      return [
        mapOf(read(join(appData("Claude"), "claude_desktop_config.json"), false)?.mcpServers),
      ];
    case "vscode":
      return [
        mapOf(read(join(appData("Code"), "User", "mcp.json"), true)?.servers),
        mapOf(read(join(cwd, ".vscode", "mcp.json"), true)?.servers),
      ];
    case "windsurf":
      return [
        mapOf(read(join(home, ".codeium", "windsurf", "mcp_config.json"), false)?.mcpServers),
      ];
    case "zed":
      return [
        mapOf(read(join(configHome, "zed", "settings.json"), true)?.context_servers),
        mapOf(read(join(cwd, ".zed", "settings.json"), true)?.context_servers),
      ];
    default: {
      const never: never = client;
      return never;
    }
  }
}

/** The stdio servers a client would start, as it would start them. */
export function readClientServers(client: FakeClientName, place: ClientPlace): ClientServer[] {
  const expand = expander(client, place);
  const servers = new Map<string, ClientServer>();
  for (const map of mapsOf(client, place)) {
    for (const [name, entry] of Object.entries(map)) {
      // Zed's older form keeps the command in `command: { path, args, env }`.
      const shape =
        entry.command !== null && typeof entry.command === "object"
          ? (entry.command as Entry)
          : entry;
      const command = shape === entry ? entry.command : shape.path;
      const remote = typeof entry.type === "string" && entry.type !== "stdio";
      if (typeof command !== "string" || remote) continue;
      const raw = [command, ...((shape.args as unknown[]) ?? []).map(String)];
      const env = Object.fromEntries(
        Object.entries(mapOf(shape.env)).map(([key, value]) => [key, expand(String(value))]),
      );
      const asks = [...raw, ...Object.values(mapOf(shape.env)).map(String)].some((text) =>
        text.includes("${input:"),
      );
      const [expanded, ...args] = raw.map(expand);
      servers.set(name, {
        name,
        command: expanded!,
        args,
        env,
        ...(asks && client === "vscode" ? { skip: "needs an input VS Code would ask for" } : {}),
      });
    }
  }
  return [...servers.values()];
}

// Where each MCP client keeps its config (seed F-002) and which client a command starts
// (seed F-001). Paths from each client's documentation (see __fixtures__/clients/PROVENANCE.md).

import { basename, join, resolve } from "node:path";
import {
  CLAUDE_CODE_USER_DIALECT,
  type ClientName,
  type ConfigDialect,
  type DialectContext,
  MCP_SERVERS_DIALECT,
  VSCODE_DIALECT,
  ZED_DIALECT,
} from "./config-dialects.js";

/** One config file of a client, found or to be looked for. */
export interface ClientConfigFile {
  client: ClientName;
  path: string;
  dialect: ConfigDialect;
  /** The project the file's per-project maps are read for (~/.claude.json). */
  context: DialectContext;
  /** The user's own file, or a project's. */
  scope: "user" | "project";
}

/** Where to look: the home directory, the project, the platform and its variables. */
export interface ConfigLocations {
  home: string;
  /** The project directory; without one, only user files. */
  project?: string;
  /** Default: this process's. */
  platform?: NodeJS.Platform;
  /** For `XDG_CONFIG_HOME`. Default: none (`~/.config`). */
  env?: Readonly<Record<string, string | undefined>>;
}

/** The directory Electron apps and Zed keep settings in, on Linux (`$XDG_CONFIG_HOME`). */
function configHome(locations: ConfigLocations): string {
  const xdg = locations.env?.XDG_CONFIG_HOME;
  return xdg?.startsWith("/") ? xdg : join(locations.home, ".config");
}

/** Where an Electron app named `name` keeps its user data: macOS, or Linux. */
function appData(locations: ConfigLocations, name: string): string {
  return (locations.platform ?? process.platform) === "darwin"
    ? join(locations.home, "Library", "Application Support", name)
    : join(configHome(locations), name);
}

/**
 * Every config file a client reads MCP servers from, user files first, whether or not they
 * exist (the caller looks): seed F-002's table, checked against each client's documentation.
 */
export function clientConfigFiles(
  client: ClientName,
  locations: ConfigLocations,
): ClientConfigFile[] {
  const project = locations.project === undefined ? undefined : resolve(locations.project);
  const file = (
    path: string,
    dialect: ConfigDialect,
    scope: ClientConfigFile["scope"],
  ): ClientConfigFile => ({
    client,
    path,
    dialect,
    context: project === undefined ? {} : { project },
    scope,
  });
  const inProject = (...parts: string[]): string[] =>
    project === undefined ? [] : [join(project, ...parts)];
  const { home } = locations;
  switch (client) {
    case "cursor":
      return [
        file(join(home, ".cursor", "mcp.json"), MCP_SERVERS_DIALECT, "user"),
        ...inProject(".cursor", "mcp.json").map((path) =>
          file(path, MCP_SERVERS_DIALECT, "project"),
        ),
      ];
    case "claude-code":
      return [
        file(join(home, ".claude.json"), CLAUDE_CODE_USER_DIALECT, "user"),
        ...inProject(".mcp.json").map((path) => file(path, MCP_SERVERS_DIALECT, "project")),
      ];
    case "claude-desktop":
      return [
        file(
          join(appData(locations, "Claude"), "claude_desktop_config.json"),
          MCP_SERVERS_DIALECT,
          "user",
        ),
      ];
    case "vscode":
      return [
        file(join(appData(locations, "Code"), "User", "mcp.json"), VSCODE_DIALECT, "user"),
        file(
          join(appData(locations, "Code - Insiders"), "User", "mcp.json"),
          VSCODE_DIALECT,
          "user",
        ),
        ...inProject(".vscode", "mcp.json").map((path) => file(path, VSCODE_DIALECT, "project")),
      ];
    case "windsurf":
      return [
        file(join(home, ".codeium", "windsurf", "mcp_config.json"), MCP_SERVERS_DIALECT, "user"),
      ];
    case "zed":
      return [
        file(join(configHome(locations), "zed", "settings.json"), ZED_DIALECT, "user"),
        ...inProject(".zed", "settings.json").map((path) => file(path, ZED_DIALECT, "project")),
      ];
    default: {
      const never: never = client;
      return never;
    }
  }
}

/**
 * A file given with `--config`: read in the dialect of `client` when given, else of the client
 * whose file name it has (`.claude.json`, `settings.json` under `zed/`, `.vscode/mcp.json`, …);
 * any other name is read as `mcpServers` (Cursor, Claude Desktop, Windsurf, `.mcp.json`).
 */
export function configFileFor(
  path: string,
  client: ClientName | undefined,
  context: DialectContext,
): ClientConfigFile {
  const name = basename(path);
  const absolute = resolve(path);
  const guessed: ClientName =
    client ??
    (name === ".claude.json" || name === ".mcp.json"
      ? "claude-code"
      : name === "claude_desktop_config.json"
        ? "claude-desktop"
        : name === "mcp_config.json"
          ? "windsurf"
          : name === "settings.json" && /(^|\/)\.?zed\/settings\.json$/.test(absolute)
            ? "zed"
            : name === "mcp.json" && /(^|\/)(\.vscode|User)\/mcp\.json$/.test(absolute)
              ? "vscode"
              : "cursor");
  const dialect =
    guessed === "vscode"
      ? VSCODE_DIALECT
      : guessed === "zed"
        ? ZED_DIALECT
        : guessed === "claude-code" && name === ".claude.json"
          ? CLAUDE_CODE_USER_DIALECT
          : MCP_SERVERS_DIALECT;
  return { client: guessed, path, dialect, context, scope: "user" };
}

/**
 * The commands that start each client (seed F-001): `claude` and `claude-code` are Claude
 * Code; `cursor` (the editor), `cursor-agent` and `agent` (its CLI) are Cursor; `code` and
 * `code-insiders` are VS Code; `windsurf`; `zed` (and `zeditor`, its name in Linux packages).
 */
export const CLIENT_COMMANDS: Readonly<Record<string, ClientName>> = {
  claude: "claude-code",
  "claude-code": "claude-code",
  "claude-desktop": "claude-desktop",
  cursor: "cursor",
  "cursor-agent": "cursor",
  agent: "cursor",
  code: "vscode",
  "code-insiders": "vscode",
  windsurf: "windsurf",
  zed: "zed",
  zeditor: "zed",
};

/**
 * The client a command starts, by its program's name (seed F-001), or undefined: a path into
 * an app bundle named Claude (`/Applications/Claude.app/…`) is Claude Desktop.
 */
export function detectClient(command: string): ClientName | undefined {
  if (/(^|\/)Claude[^/]*\.app(\/|$)/.test(command)) return "claude-desktop";
  const name = basename(command);
  return Object.hasOwn(CLIENT_COMMANDS, name) ? CLIENT_COMMANDS[name] : undefined;
}

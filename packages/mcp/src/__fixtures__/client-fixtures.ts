// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the clients' variable syntax, kept as written
// The client config fixtures (clients/, shaped from each client's documentation: see
// clients/PROVENANCE.md) and what each holds, for the per-client tests.

import { readFileSync } from "node:fs";
import {
  CLAUDE_CODE_USER_DIALECT,
  type ClientName,
  type ConfigDialect,
  MCP_SERVERS_DIALECT,
  VSCODE_DIALECT,
  ZED_DIALECT,
} from "../config-dialects.js";

/** A client's config shaped from its documentation (see __fixtures__/clients/PROVENANCE.md). */
interface ClientFixture {
  name: string;
  client: ClientName;
  file: string;
  dialect: ConfigDialect;
  project?: string;
  /** The stdio entries wrap runs through the proxy. */
  stdio: string[];
  /** Entries left alone: remote ones, and those with nothing to run. */
  remote: string[];
  unknown: string[];
  /** Variable references and text that must stay as written. */
  kept: string[];
}

export const CLIENT_FIXTURES: ClientFixture[] = [
  {
    name: "Cursor mcp.json",
    client: "cursor",
    file: "cursor-mcp.json",
    dialect: MCP_SERVERS_DIALECT,
    stdio: ["github", "local-tools"],
    remote: ["linear"],
    unknown: [],
    kept: ['"${env:GITHUB_TOKEN}"', '"${userHome}/bin/local-mcp"', '"${workspaceFolder}/.env"'],
  },
  {
    name: "Claude Code ~/.claude.json",
    client: "claude-code",
    file: "claude-code-user.json",
    dialect: CLAUDE_CODE_USER_DIALECT,
    project: "/home/user/project",
    stdio: ["memory", "postgres"],
    remote: ["sentry"],
    unknown: [],
    kept: [
      '"${DATABASE_URL:-postgresql://localhost/dev}"',
      '"lastCost": 0.1234567890123456789',
      '"other-server"',
    ],
  },
  {
    name: "Claude Code .mcp.json",
    client: "claude-code",
    file: "claude-code-project.mcp.json",
    dialect: MCP_SERVERS_DIALECT,
    stdio: ["filesystem"],
    remote: ["api-server"],
    unknown: [],
    kept: ['"${PROJECT_ROOT:-.}"', '"${LOG_LEVEL:-info}"', '"Bearer ${API_KEY}"'],
  },
  {
    name: "Claude Desktop claude_desktop_config.json",
    client: "claude-desktop",
    file: "claude-desktop-config.json",
    dialect: MCP_SERVERS_DIALECT,
    stdio: ["filesystem", "weather"],
    remote: [],
    unknown: [],
    kept: ['"/Users/username/Desktop"'],
  },
  {
    name: "VS Code mcp.json",
    client: "vscode",
    file: "vscode-mcp.json",
    dialect: VSCODE_DIALECT,
    stdio: ["Perplexity", "fetch", "local"],
    remote: ["github"],
    unknown: [],
    kept: ['"${input:perplexity-key}"', '"${workspaceFolder}/tools/mcp-server"'],
  },
  {
    name: "Windsurf mcp_config.json",
    client: "windsurf",
    file: "windsurf-mcp_config.json",
    dialect: MCP_SERVERS_DIALECT,
    stdio: ["github"],
    remote: ["figma"],
    unknown: [],
    kept: ['"${env:GITHUB_TOKEN}"', '"Bearer ${env:AUTH_TOKEN}"'],
  },
  {
    name: "Zed settings.json",
    client: "zed",
    file: "zed-settings.json",
    dialect: ZED_DIALECT,
    stdio: ["your-mcp-server", "notion", "bare"],
    remote: ["remote"],
    unknown: ["github"],
    kept: ['"theme": "One Dark"', '"tools": { "search": true }'],
  },
];

/** A fixture's bytes, as the client's documentation shapes them. */
export function fixtureText(file: string): string {
  return readFileSync(new URL(`./clients/${file}`, import.meta.url), "utf8");
}

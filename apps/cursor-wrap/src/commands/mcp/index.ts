// `cursor-wrap mcp proxy | wrap | unwrap | status | run` (docs/requirements.md §7b): the MCP
// watchdog's commands, one module each. Their flags are `flags.ts`, resolved before this runs.

import { recoverDeadSessions } from "../../mcp-sessions.js";
import type { RunIo } from "../../run-io.js";
import { UsageError } from "../../usage-error.js";
import { clientOf, type McpConfigOptions } from "./config-files.js";
import type { McpOptions } from "./flags.js";
import { proxyCommand } from "./proxy.js";
import { rewriteCommand } from "./rewrite.js";
import { statusCommand } from "./status.js";

/** Run `cursor-wrap mcp <action>`. */
export async function mcpCommand(
  options: McpOptions,
  io: RunIo,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  // `--client` checked once, for the commands that read configs.
  const configOptions = (): McpConfigOptions => ({
    ...options,
    client: options.client === undefined ? undefined : clientOf(options.client),
  });
  switch (options.action) {
    case "proxy":
      // Started beside every server by the client: it stays quick, and never writes configs.
      return proxyCommand(options, io, env);
    case "wrap":
    case "unwrap":
      for (const line of await recoverDeadSessions()) io.stderr.write(`cursor-wrap: ${line}\n`);
      return rewriteCommand(configOptions(), io, env);
    case "status":
      return statusCommand(configOptions(), io, env);
    case "run": {
      for (const line of await recoverDeadSessions()) io.stderr.write(`cursor-wrap: ${line}\n`);
      const { mcpRunCommand } = await import("./run.js");
      return mcpRunCommand(configOptions(), io, env);
    }
    default:
      throw new UsageError(
        `unknown mcp command ${JSON.stringify(options.action)}: proxy, wrap, unwrap, status or run`,
      );
  }
}

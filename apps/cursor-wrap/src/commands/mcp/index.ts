// `cursor-wrap mcp proxy | wrap | unwrap | status | run` (docs/requirements.md §7b): the MCP
// watchdog's commands, one module each. Their flags are `flags.ts`, resolved before this runs.

import { recoverDeadSessions } from "../../mcp-sessions.js";
import type { RunIo } from "../../run-io.js";
import { UsageError } from "../../usage-error.js";
import type { McpConfigOptions } from "./config-files.js";
import type { McpOptions } from "./flags.js";

/** Run `cursor-wrap mcp <action>`. */
export async function mcpCommand(
  options: McpOptions,
  io: RunIo,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  // `--client` checked once, for the commands that read configs (a proxy loads none of them).
  const configOptions = async (): Promise<McpConfigOptions> => {
    const { clientOf } = await import("./config-files.js");
    return {
      ...options,
      client: options.client === undefined ? undefined : clientOf(options.client),
    };
  };
  switch (options.action) {
    // Each action loads its own code only: a proxy, started beside every server and running as
    // long as the client, holds neither the config rewriting (jsonc-parser, diff) nor the run's.
    case "proxy": {
      // Quick to start, and never writes configs.
      const { proxyCommand } = await import("./proxy.js");
      return proxyCommand(options, io, env);
    }
    case "wrap":
    case "unwrap": {
      for (const line of await recoverDeadSessions()) io.stderr.write(`cursor-wrap: ${line}\n`);
      const { rewriteCommand } = await import("./rewrite.js");
      return rewriteCommand(await configOptions(), io, env);
    }
    case "status": {
      const { statusCommand } = await import("./status.js");
      return statusCommand(await configOptions(), io, env);
    }
    case "run": {
      for (const line of await recoverDeadSessions()) io.stderr.write(`cursor-wrap: ${line}\n`);
      const { mcpRunCommand } = await import("./run.js");
      return mcpRunCommand(await configOptions(), io, env);
    }
    default:
      throw new UsageError(
        `unknown mcp command ${JSON.stringify(options.action)}: proxy, wrap, unwrap, status or run`,
      );
  }
}

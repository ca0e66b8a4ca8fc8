// Around a cursor-wrap run: first give back what a SIGKILLed MCP session left wrapped; then,
// with `--mcp-watchdog`, wrap Cursor's MCP configs for the run's duration (an MCP session, as
// `mcp run` starts one), so a hung MCP call becomes an error the agent recovers from without
// editing any file, and give them back when the run ends, however it ends.

import { existsSync } from "node:fs";
import { homedir } from "node:os";
import {
  mcpSessionsDir,
  recoverDeadSessions,
  releaseLines,
  sessionStartLine,
} from "./mcp-sessions.js";
import type { RunOptions } from "./options/run-options.js";
import type { RunIo } from "./run-io.js";

/** The project cursor-agent works in: its `--workspace`, else the current directory. */
function workspaceOf(options: RunOptions): string {
  const given = [...options.agentArgumentsFromEnv]
    .concat(options.agentArguments.flatMap((argument) => argument.tokens))
    .reduce<string | undefined>((found, token, index, tokens) => {
      if (token === "--workspace") return tokens[index + 1] ?? found;
      if (token.startsWith("--workspace=")) return token.slice("--workspace=".length);
      return found;
    }, undefined);
  return given ?? process.cwd();
}

/**
 * The proxy's request timeout for a run: shorter than the hang monitor's `mcp` allowance, so
 * the proxy answers a hung call before the monitor would have to kill the agent for it.
 */
function requestTimeoutFlags(options: RunOptions, defaultMs: number): string[] {
  const allowance = options.toolTimeouts.mcp;
  return allowance !== undefined && Number.isFinite(allowance) && allowance < defaultMs
    ? ["--request-timeout", `${Math.max(1_000, Math.round(allowance))}ms`]
    : [];
}

/** Run `run` with the MCP watchdog around it when `--mcp-watchdog` asks for it. */
export async function withMcpWatchdog(
  options: RunOptions,
  io: RunIo,
  run: () => Promise<number>,
): Promise<number> {
  const say = (line: string): void => {
    io.stderr.write(`cursor-wrap: ${line}\n`);
  };
  for (const line of await recoverDeadSessions()) say(line);
  if (!options.mcpWatchdog) return run();
  // Loaded only for a run that asks for the watchdog: a plain run starts as fast as before.
  const { beginMcpSession, clientConfigFiles, MCP_DEFAULTS } = await import("@cursor-wrap/mcp");
  const { proxyInvocation } = await import("./commands/mcp/config-files.js");
  const configs = clientConfigFiles("cursor", {
    home: homedir(),
    project: workspaceOf(options),
    env: process.env,
  }).filter((file) => existsSync(file.path));
  if (configs.length === 0) {
    say("MCP watchdog: no Cursor MCP config (~/.cursor/mcp.json, .cursor/mcp.json) to wrap");
    return run();
  }
  const session = beginMcpSession({
    configs,
    proxy: {
      ...proxyInvocation(),
      options: requestTimeoutFlags(options, MCP_DEFAULTS.requestTimeoutMs),
    },
    command: "cursor-wrap --mcp-watchdog",
    registryDir: mcpSessionsDir(),
  });
  say(sessionStartLine(session, "the run ends"));
  // A crash ends the run through `process.exit` (run-control.ts): the configs go back first.
  const onExit = (): void => {
    session.end();
  };
  process.once("exit", onExit);
  try {
    return await run();
  } finally {
    process.off("exit", onExit);
    for (const line of releaseLines(session.end())) say(line);
  }
}

import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { shellWord } from "@cursor-wrap/events";
import { createColors } from "picocolors";
import { resolveRunOptions } from "../../options/resolve.js";
import type { RunIo } from "../../run-io.js";
import { selfCommand } from "../../self-command.js";
import { runCommand } from "../run/index.js";

interface DemoStep {
  title: string;
  scenario: string;
  prompt: string;
  expected: number;
  /** The fake agent's MCP server runs behind the MCP watchdog with this --request-timeout. */
  mcpRequestTimeout?: string;
}

const STEPS: DemoStep[] = [
  {
    title:
      "1/5 A normal turn: the agent thinks, runs a shell command and answers. cursor-wrap passes it through; exit 0.",
    scenario: "normal:500",
    prompt: "Run the test suite and tell me how it went",
    expected: 0,
  },
  {
    title:
      "2/5 An idle hang: the agent goes silent with no tool running. With --idle-timeout 3s, cursor-wrap kills it 3s later; exit 2.",
    scenario: "idle-hang",
    prompt: "Explain the build setup",
    expected: 2,
  },
  {
    title:
      "3/5 A tool-timeout hang: a shell call declares a 1s timeout and never finishes. cursor-wrap waits for it until timeout + --tool-grace 2s, then kills it; exit 2.",
    scenario: "tool-hang:1000",
    prompt: "Build the project",
    expected: 2,
  },
  {
    title:
      "4/5 A linger: the agent answers but its process never exits. cursor-wrap kills it --exit-grace 2s after the result; the turn still counts as completed, exit 0.",
    scenario: "linger",
    prompt: "Say hello",
    expected: 0,
  },
  {
    title:
      "5/5 A hung MCP call: the agent calls an MCP tool whose server never answers. The MCP watchdog (cursor-wrap mcp proxy --request-timeout 2s) answers it with an error 2s later; the agent goes on and finishes, exit 0.",
    scenario: "mcp-call:hang",
    prompt: "Is the login test flaky?",
    expected: 0,
    mcpRequestTimeout: "2s",
  },
];

/** How the fake agent starts its MCP server: through this cursor-wrap's `mcp proxy`, as `mcp wrap` would write it. */
function proxiedServer(requestTimeout: string, logDir: string, fakeMcpServerBin: string): string {
  return JSON.stringify([
    process.execPath,
    realpathSync(process.argv[1] ?? ""),
    "mcp",
    "proxy",
    "--server-id",
    "tracker",
    "--request-timeout",
    requestTimeout,
    "--log-dir",
    logDir,
    "--",
    process.execPath,
    fakeMcpServerBin,
  ]);
}

/**
 * An executable that runs one of the demo's scripts with this Node. The agent is run as
 * cursor-agent would be, by its path; npm installs a package's files without their executable
 * bits (only `bin` entries get one), so the demo writes its own small launcher.
 */
function demoExecutable(dir: string, script: string): string {
  const launcher = join(dir, script.replace(/\.c?js$/, ""));
  const target = fileURLToPath(new URL(`./${script}`, import.meta.url));
  writeFileSync(
    launcher,
    `#!/bin/sh\nexec ${shellWord(process.execPath)} ${shellWord(target)} "$@"\n`,
    { mode: 0o700 },
  );
  return launcher;
}

/**
 * `cursor-wrap demo` (R-CLI7): run cursor-wrap against the bundled fake agent with short
 * thresholds, so a newcomer sees a normal turn and each kind of hang being handled, with no
 * Cursor account. Logs go to a fresh temporary directory.
 */
export async function demoCommand(io: RunIo): Promise<number> {
  const paint = createColors(io.stdout.isTTY === true);
  const logDir = mkdtempSync(join(tmpdir(), "cursor-wrap-demo-"));
  // Built beside this file (see tsup.config.ts): the demo needs nothing but the CLI.
  const fakeAgentBin = demoExecutable(logDir, "demo-agent.cjs");
  const fakeMcpServerBin = fileURLToPath(new URL("./demo-mcp-server.cjs", import.meta.url));
  const base = resolveRunOptions({ given: new Map(), env: {} });
  let failures = 0;
  for (const step of STEPS) {
    io.stdout.write(`\n${paint.bold(`▶ ${step.title}`)}\n\n`);
    // The agent inherits this process's environment, as cursor-agent inherits the user's.
    const mcpServer = process.env.FAKE_AGENT_MCP_SERVER;
    if (step.mcpRequestTimeout !== undefined) {
      process.env.FAKE_AGENT_MCP_SERVER = proxiedServer(
        step.mcpRequestTimeout,
        logDir,
        fakeMcpServerBin,
      );
    }
    const code = await runCommand(
      {
        ...base,
        print: true,
        outputFormat: "text",
        agentBin: fakeAgentBin,
        // The fake agent takes its scenario from a prompt that starts with scenario:<name>.
        prompt: `scenario:${step.scenario} ${step.prompt}`,
        idleTimeoutMs: 3_000,
        toolGraceMs: 2_000,
        exitGraceMs: 2_000,
        killGraceMs: 1_000,
        logDir,
        logLevel: "silent",
      },
      io,
      { alwaysRender: true },
    ).finally(() => {
      if (mcpServer === undefined) delete process.env.FAKE_AGENT_MCP_SERVER;
      else process.env.FAKE_AGENT_MCP_SERVER = mcpServer;
    });
    if (code !== step.expected) failures += 1;
    io.stdout.write(
      paint.dim(
        `\n  exit ${code}${code === step.expected ? "" : ` (expected ${step.expected})`}\n`,
      ),
    );
  }
  // Named as it can be run from here: a clone puts no cursor-wrap on PATH.
  const me = selfCommand();
  const dir = shellWord(logDir);
  io.stdout.write(
    `\n${paint.bold("Done.")} The forensic logs of these five runs (and of the MCP proxy) are in ${logDir}:\n` +
      `  ${me} logs --log-dir ${dir}\n` +
      `  ${me} logs show <session id> --log-dir ${dir}\n` +
      `  ${me} replay <one of those files> --idle-timeout 10s\n`,
  );
  return failures === 0 ? 0 : 1;
}

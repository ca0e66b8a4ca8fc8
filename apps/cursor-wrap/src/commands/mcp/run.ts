// `cursor-wrap mcp run [--client …] -- <agent command…>` (seed F-009, F-010, F-019, F-020): the
// agent's MCP configs wrapped for as long as it runs, the agent on the user's terminal as it
// would run without cursor-wrap, and the configs given back whatever ends it.
//
// Signals: SIGTERM and SIGHUP are passed on to the agent. Ctrl+C and Ctrl+\ reach the agent
// from the terminal itself (cursor-wrap and the agent share the terminal's foreground process
// group), so a SIGINT or SIGQUIT is passed on only when cursor-wrap is not in the foreground of
// a terminal (then it was sent to cursor-wrap alone). An agent that outlives a passed-on signal by 10 s is killed,
// and once it is gone, so is what it started and left running in cursor-wrap's own process
// group (found by the token its environment passes on, Linux: a launcher script's child does
// not get a signal sent to the script), after the MCP proxies have ended their servers. What
// left the group (an editor's app, its terminals' shells) is not touched; an agent that exits
// by itself keeps what it left, but for the proxies.
// A crash of cursor-wrap gives the configs back before it exits; a SIGKILL leaves them to the
// next cursor-wrap start, which finds the session's record.

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { terminalSafe } from "@cursor-wrap/events";
import { beginMcpSession, detectClient, type McpSession } from "@cursor-wrap/mcp";
import {
  AGENT_TOKEN_VARIABLE,
  AgentSpawnError,
  findAgentTree,
  isRunning,
  type ProcessEntry,
} from "@cursor-wrap/supervisor";
import { signalExitCode } from "../../exit-codes.js";
import { STOP_SIGNALS } from "../../exit-signals.js";
import {
  CLIENT_LABELS,
  mcpSessionsDir,
  releaseLines,
  sessionStartLine,
} from "../../mcp-sessions.js";
import { printError } from "../../print-error.js";
import type { RunIo } from "../../run-io.js";
import { UsageError } from "../../usage-error.js";
import { existingConfigFiles, type McpConfigOptions, proxyInvocation } from "./config-files.js";

/** How long an agent may take to exit after a signal was passed on to it, ms. */
const AGENT_EXIT_GRACE_MS = 10_000;
/** How long the proxies the agent left get to end their servers after SIGTERM, ms. */
const PROXY_EXIT_GRACE_MS = 10_000;
/** How long what a signalled agent left running gets between SIGTERM and SIGKILL, ms. */
const LEFT_RUNNING_GRACE_MS = 2_000;

/** Launchers of editors that hand the window to a running app and return at once. */
const RETURNS_AT_ONCE = new Set(["cursor", "code", "code-insiders", "windsurf", "zed", "zeditor"]);

/** This process's group, session, terminal and its terminal's foreground group (Linux). */
function selfStat(): { group: number; session: number; terminal: number; foreground: number } {
  const stat = readFileSync("/proc/self/stat", "latin1");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const [group, session, terminal, foreground] = [2, 3, 4, 5].map((at) => Number(fields[at]));
  return { group: group!, session: session!, terminal: terminal!, foreground: foreground! };
}

/**
 * Whether this process is in the foreground of its terminal: a SIGINT then most likely came
 * from Ctrl+C, which the terminal sent to the agent too. Linux reads it from /proc; elsewhere a
 * terminal on stdin stands for it.
 */
function inTerminalForeground(io: RunIo): boolean {
  try {
    const { group, terminal, foreground } = selfStat();
    return terminal !== 0 && foreground === group;
  } catch {
    return io.stdin.isTTY === true;
  }
}

/**
 * End what a signalled agent left running in this process's own group and session (its
 * launcher's children): SIGTERM, then SIGKILL for any still there after the grace. Found by
 * the run's token (Linux); elsewhere nothing is touched.
 */
async function endLeftRunning(agentPid: number, token: string): Promise<void> {
  let own: ReturnType<typeof selfStat>;
  try {
    own = selfStat();
  } catch {
    return;
  }
  const left = (await findAgentTree(agentPid, token)).filter(
    (entry) => entry.pid !== agentPid && entry.pgid === own.group && entry.sid === own.session,
  );
  await endInStages(left, LEFT_RUNNING_GRACE_MS);
}

/**
 * SIGTERM to `entries`, then SIGKILL to any still running after `graceMs`. Running: the same
 * process (its start time), not a zombie waiting for its parent, nor a later process given its
 * number, which must never get the SIGKILL.
 */
async function endInStages(entries: readonly ProcessEntry[], graceMs: number): Promise<void> {
  for (const entry of entries) signalProcess(entry.pid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  const running = async (list: readonly ProcessEntry[]): Promise<ProcessEntry[]> => {
    const states = await Promise.all(list.map((entry) => isRunning(entry)));
    return list.filter((_, index) => states[index]);
  };
  let alive = await running(entries);
  while (alive.length > 0 && Date.now() < deadline) {
    await sleep(50);
    alive = await running(alive);
  }
  for (const entry of alive) signalProcess(entry.pid, "SIGKILL");
}

function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone meanwhile
  }
}

/** The command line of a process, as its words (Linux), or none. */
function commandLineOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0");
  } catch {
    return [];
  }
}

/**
 * End the MCP proxies the agent started and left running (found by the token its environment
 * passed on to them; Linux): SIGTERM, which makes each end its server in stages, then SIGKILL
 * for any still there after the grace. Elsewhere the proxies end on their own when the agent's
 * end closes their stdin.
 */
async function endProxies(agentPid: number, token: string): Promise<number> {
  const proxies = (await findAgentTree(agentPid, token)).filter((entry) => {
    const words = commandLineOf(entry.pid);
    const at = words.indexOf("mcp");
    return at !== -1 && words[at + 1] === "proxy";
  });
  await endInStages(proxies, PROXY_EXIT_GRACE_MS);
  return proxies.length;
}

/** `cursor-wrap mcp run … -- <agent command…>`: returns the agent's exit code. */
export async function mcpRunCommand(
  options: McpConfigOptions,
  io: RunIo,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const [command, ...args] = options.command;
  if (command === undefined) {
    throw new UsageError(
      "mcp run needs the agent's command after --, as in cursor-wrap mcp run -- claude",
    );
  }
  const client = options.client ?? detectClient(command);
  if (client === undefined) {
    throw new UsageError(
      `cannot tell which MCP client ${JSON.stringify(command)} is; name it with --client (${Object.keys(CLIENT_LABELS).join(", ")})`,
    );
  }
  const files = existingConfigFiles({ ...options, client }, env);
  const proxy = { ...proxyInvocation(), options: options.proxyFlags };
  const agentName = terminalSafe(command.split("/").pop() ?? command);
  const say = (line: string): void => {
    io.stderr.write(`cursor-wrap: ${line}\n`);
  };
  const session: McpSession | undefined =
    files.length === 0
      ? undefined
      : beginMcpSession({
          configs: files,
          proxy,
          command: [command, ...args].join(" "),
          registryDir: mcpSessionsDir(),
        });
  if (session) say(sessionStartLine(session, `${agentName} exits`));
  else
    say(`no ${CLIENT_LABELS[client]} MCP config found; running ${agentName} without the watchdog`);
  if (
    RETURNS_AT_ONCE.has(command.split("/").pop() ?? "") &&
    !args.some((arg) => /^(-w|--wait)$/.test(arg))
  ) {
    say(
      `${agentName} hands the window to the editor and returns at once; add --wait (${agentName} --wait …) to keep the configs wrapped while the window is open`,
    );
  }

  const giveBack = (): void => {
    for (const line of releaseLines(session?.end() ?? [])) say(line);
  };
  // A crash of cursor-wrap itself still gives the configs back (synchronously, before exiting).
  const onExit = (): void => giveBack();
  const onCrash = (error: unknown): void => {
    giveBack();
    printError(
      io.stderr,
      `internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    process.exit(1);
  };
  process.once("exit", onExit);
  process.once("uncaughtException", onCrash);

  const token = randomBytes(8).toString("hex");
  try {
    const child = spawn(command, args, {
      stdio: "inherit",
      env: { ...env, [AGENT_TOKEN_VARIABLE]: token },
    });
    let hurry: NodeJS.Timeout | undefined;
    let passedOn = false;
    const forward = (signal: NodeJS.Signals): void => {
      // Ctrl+C and Ctrl+\ from the terminal reached the agent too.
      if ((signal === "SIGINT" || signal === "SIGQUIT") && inTerminalForeground(io)) return;
      passedOn = true;
      child.kill(signal);
      hurry ??= setTimeout(() => child.kill("SIGKILL"), AGENT_EXIT_GRACE_MS);
    };
    const signals = STOP_SIGNALS;
    for (const signal of signals) process.on(signal, forward);
    let code: number;
    try {
      code = await new Promise<number>((resolve, reject) => {
        child.once("error", (error: NodeJS.ErrnoException) =>
          reject(new AgentSpawnError(command, error.code, error.message, { cause: error })),
        );
        child.once("exit", (exitCode, signal) =>
          resolve(signal ? signalExitCode(signal) : (exitCode ?? 1)),
        );
      });
    } finally {
      clearTimeout(hurry);
      for (const signal of signals) process.off(signal, forward);
    }
    if (child.pid !== undefined) {
      await endProxies(child.pid, token);
      if (passedOn) await endLeftRunning(child.pid, token);
    }
    return code;
  } finally {
    process.off("exit", onExit);
    process.off("uncaughtException", onCrash);
    giveBack();
  }
}

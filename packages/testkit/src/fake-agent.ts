import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Step } from "./scenarios.js";

const here = dirname(fileURLToPath(import.meta.url));

// The package's commands (bin/), which run the built code: package managers make them
// executable on install, and they exist before the first build.
const commands = join(here, "..", "bin");

/** Absolute path of the `fake-cursor-agent` executable (the built one, also when run from source). */
export const fakeAgentBin: string = join(commands, "fake-cursor-agent.js");

/**
 * Absolute path of the `fake-mcp-server` executable: an MCP server on stdio whose tools hang,
 * crash, answer late, flood or smuggle a message, on purpose (options in its source).
 */
export const fakeMcpServerBin: string = join(commands, "fake-mcp-server.js");

/**
 * Absolute path of the `fake-mcp-client` executable: an MCP client that reads its config the
 * way a named client does (`--client claude-code`, …), starts each stdio server through the
 * official SDK's stdio transport and calls a tool on it (options in its source).
 */
export const fakeMcpClientBin: string = join(commands, "fake-mcp-client.js");

/**
 * Absolute path of the `fake-acp-agent` executable: an Agent Client Protocol agent on stdio
 * (ACP v1, or the v2 draft) that stands in for Cursor's `agent acp`, with scenarios per prompt
 * (see {@link FakeAcpAgentOptions}).
 */
export const fakeAcpAgentBin: string = join(commands, "fake-acp-agent.js");

/** How the fake ACP agent behaves; turned into environment variables by {@link fakeAcpAgentEnv}. */
export interface FakeAcpAgentOptions {
  /**
   * What a prompt does unless it starts with `scenario:<name>`. Default `normal`:
   * - `normal`: a thought, a plan, a `read_file` call that completes, an answer, `end_turn`
   * - `tool-hang`: a `web_search` call that never completes; `session/cancel` ends the turn
   * - `parked`: the same call, then nothing at all for the session (cancel ignored), with a
   *   sleeping child process: only a kill of the tree ends it
   * - `crash`: the call, a line on stderr, and exit code 3 mid-turn
   * - `idle-hang`: a thought, then silence; `session/cancel` ends the turn
   * - `permission`: `session/request_permission` for `Run npm test`, then an answer naming
   *   the option chosen
   * - `cursor-question`: a `cursor/ask_question` request, a `cursor/update_todos`
   *   notification, then an answer naming the choice
   */
  scenario?: string;
  /** The highest ACP version it speaks (1 or 2). Default 1. */
  protocol?: 1 | 2;
  /** File every message it reads is appended to (see {@link readAcpRecord}). */
  record?: string;
  /** Directory its sessions are kept in, so a restarted process can load them. */
  stateDir?: string;
  /** File the pids of children it starts are appended to. */
  pidFile?: string;
  /** How long a tool call of `normal` runs, ms. Default 50. */
  toolMs?: number;
}

/** Environment variables that make the fake ACP agent behave as described. */
export function fakeAcpAgentEnv(options: FakeAcpAgentOptions = {}): Record<string, string> {
  const env: Record<string, string> = {};
  if (options.scenario !== undefined) env.FAKE_ACP_SCENARIO = options.scenario;
  if (options.protocol !== undefined) env.FAKE_ACP_PROTOCOL = String(options.protocol);
  if (options.record !== undefined) env.FAKE_ACP_RECORD = options.record;
  if (options.stateDir !== undefined) env.FAKE_ACP_STATE_DIR = options.stateDir;
  if (options.pidFile !== undefined) env.FAKE_ACP_PID_FILE = options.pidFile;
  if (options.toolMs !== undefined) env.FAKE_ACP_TOOL_MS = String(options.toolMs);
  return env;
}

/** One message the fake ACP agent read, and the process that read it. */
export interface AcpRecordEntry {
  pid: number;
  message: {
    id?: number | string;
    method?: string;
    params?: Record<string, unknown>;
    result?: unknown;
  };
}

/** The messages the fake ACP agent processes read, in order (none if the file does not exist). */
export function readAcpRecord(file: string): AcpRecordEntry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AcpRecordEntry);
}

/** How the fake agent should behave; turned into environment variables by {@link fakeAgentEnv}. */
export interface FakeAgentOptions {
  /**
   * A built-in scenario (`"normal"`, `"tool-hang:2000"`, …), one per invocation (`["normal",
   * "idle-hang"]`: the first invocation plays the first, later ones the next, the last one
   * repeats), or explicit steps. A prompt starting with `scenario:<name>` overrides it.
   */
  scenario?: string | readonly string[] | readonly Step[];
  /** File every invocation is appended to (see {@link readInvocations}). */
  record?: string;
  /** File every descendant the agent starts appends its pid to. */
  pidFile?: string;
  /** Replay speed factor for `replay:` scenarios. Default 1. */
  speed?: number;
  /** Session id to announce when not resuming. Default: a random UUID. */
  sessionId?: string;
  /** Descendants exit on their own after this long, ms. Default 120000. */
  descendantTtlMs?: number;
  /**
   * A file the fake agent keeps state in across invocations: attempt counters for scenarios
   * that fail the first N times (`overloaded:2`), the reset time of `usage-limit-soon`.
   */
  state?: string;
}

/** Environment variables that make the fake agent behave as described. */
export function fakeAgentEnv(options: FakeAgentOptions = {}): Record<string, string> {
  const env: Record<string, string> = {};
  const { scenario } = options;
  if (typeof scenario === "string") env.FAKE_AGENT_SCENARIO = scenario;
  else if (scenario && scenario.length > 0 && typeof scenario[0] === "string") {
    env.FAKE_AGENT_SCENARIO = (scenario as readonly string[]).join(",");
  } else if (scenario && scenario.length > 0)
    env.FAKE_AGENT_SCENARIO_JSON = JSON.stringify(scenario);
  if (options.record) env.FAKE_AGENT_RECORD = options.record;
  if (options.pidFile) env.FAKE_AGENT_PID_FILE = options.pidFile;
  if (options.speed !== undefined) env.FAKE_AGENT_SPEED = String(options.speed);
  if (options.sessionId) env.FAKE_AGENT_SESSION_ID = options.sessionId;
  if (options.descendantTtlMs !== undefined)
    env.FAKE_AGENT_DESCENDANT_TTL_MS = String(options.descendantTtlMs);
  if (options.state) env.FAKE_AGENT_STATE = options.state;
  return env;
}

/** One run of the fake agent, as it recorded itself. */
export interface Invocation {
  argv: string[];
  /** The prompt it used: the positional argument if given, else what it read from stdin. */
  prompt: string;
  /** Everything it read from stdin (as UTF-8 text). */
  stdin: string;
  /** Everything it read from stdin, byte for byte. */
  stdinBase64?: string;
  cwd: string;
  pid: number;
  pgid: number | undefined;
  /** The wrapper's per-run token from its environment, if any. */
  token: string | undefined;
  stdinIsTTY: boolean;
  /** Recorded for the agent's own subcommands, which cursor-wrap runs on the user's terminal. */
  stdoutIsTTY?: boolean;
  /** The scenario played, or `command:<subcommand>` for one of the agent's own commands. */
  scenario: string;
  sessionId: string;
  /** The `--model`/`-m` it was given, if any. */
  model?: string;
  /** `CURSOR_API_KEY` in its environment, if set (a test fake: recorded in the clear). */
  apiKey?: string;
  /** `TRACEPARENT` in its environment, if set: the W3C trace context it was started in. */
  traceparent?: string;
  /** The names of the `CURSOR_WRAP_*` variables in its environment (what the wrapper passed on). */
  wrapperVariables?: string[];
  startedAt: number;
}

/** The invocations recorded in `file`, oldest first (none if the file does not exist). */
export function readInvocations(file: string): Invocation[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Invocation);
}

/** The pids descendants wrote to a pid file. */
export function readPids(file: string): number[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number);
}

/** Whether a process is alive (and not a zombie). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    if (process.platform === "linux") return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

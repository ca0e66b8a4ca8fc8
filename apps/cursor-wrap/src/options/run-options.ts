import type { OutputFormat } from "@cursor-wrap/format";
import type { LevelName } from "@cursor-wrap/logger";
import type { NotifyEvent } from "@cursor-wrap/notify";
import type { AgentArgument } from "./command-line.js";

/** How the run report is also presented: `json` (the file only) or `github` (job summary, annotations). */
export type ReportFormat = "auto" | "json" | "github";

/** How much of the agent's stderr is shown: all of it, non-JSON lines only, or nothing. */
export type StderrMode = "all" | "errors" | "none";

/** What stdin (or the prompt) is: the prompt's text, or the adapter contract's turn input. */
export type InputFormat = "text" | "turn";

/**
 * Everything a run needs, resolved from flags, environment and defaults. Each field but the
 * last two is set by exactly one row of the flag table (`FLAGS` in `flags.ts`).
 */
export interface RunOptions {
  print: boolean;
  outputFormat: OutputFormat;
  inputFormat: InputFormat;
  /** Stop the run at a tool call the turn input's `tools` do not allow. */
  enforceTools: boolean;
  resume: string | undefined;
  idleTimeoutMs: number;
  toolGraceMs: number;
  /** Allowance per tool kind, merged over the monitor's defaults. */
  toolTimeouts: Record<string, number>;
  exitGraceMs: number;
  /** Silence before the first output that counts as a hang. */
  firstOutputMs: number;
  /** Silence that is a hang however busy the agent's processes are; 0: silence alone decides. */
  maxQuietMs: number;
  /** How long after its result a draining agent may take to exit. */
  maxDrainMs: number;
  /** How long the agent may wait, silent, on background work. */
  backgroundWaitMs: number;
  maxTurnMs: number | undefined;
  killGraceMs: number;
  drainGraceMs: number;
  /** Accepted for compatibility with the original design; detection needs no tick. */
  tickIntervalMs: number | undefined;
  promptAfterHang: string | undefined;
  maxHangRetries: number;
  /** Retries after transient failures, per prompt and model. */
  maxRetries: number;
  /** The first retry's backoff ceiling, ms (doubling after). */
  retryBackoffMs: number;
  /** Models to go on with, in order (`auto`, `suggested`, names). */
  fallbackModels: string[];
  /** Wait for a usage limit's reset (up to `maxWaitMs`) instead of switching models. */
  waitForReset: boolean;
  maxWaitMs: number;
  /** Auth profile names, tried in order on an auth failure. */
  authProfiles: string[];
  /** Wrap Cursor's MCP configs for the run's duration (`--mcp-watchdog`). */
  mcpWatchdog: boolean;
  /** The agent binary as given; undefined: look for it (R-CLI1d). */
  agentBin: string | undefined;
  force: boolean;
  pty: boolean;
  stderrMode: StderrMode;
  logDir: string;
  logLevel: LevelName;
  logRetentionMs: number;
  redact: boolean;
  parseCap: number;
  /** Where to write the run report (JSON), if anywhere (`--report`). */
  reportFile: string | undefined;
  /** `github`: also a job summary and annotations; `auto`: so when `GITHUB_ACTIONS=true`. */
  reportFormat: ReportFormat;
  /** Export an OpenTelemetry trace of the run (`--otel`; the OTEL_* variables can ask too). */
  otel: boolean;
  /** A command to run on each notification, as words (no shell): `--on-verdict`. */
  onVerdict: string[] | undefined;
  /** The events `--on-verdict` and `--notify` are told of. */
  onVerdictEvents: NotifyEvent[];
  /** A webhook to POST each notification to (`--notify`). */
  notifyUrl: string | undefined;
  /** How long a notification's command or webhook may take, ms. */
  notifyTimeoutMs: number;
  /** The agent's own flags as the user gave them, in order (R-CLI1b). */
  agentArguments: AgentArgument[];
  /** Agent flags supplied by cursor-wrap variables (`CURSOR_WRAP_MODEL=…` → `--model …`). */
  agentArgumentsFromEnv: string[];
  /** The prompt given as arguments, if any. */
  prompt: string | undefined;
}

/** The fields the flag table sets. */
export type FlagKey = Exclude<
  keyof RunOptions,
  "agentArguments" | "agentArgumentsFromEnv" | "prompt"
>;

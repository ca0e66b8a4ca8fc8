// The run report, version 1: the shape of the JSON document `--report <file>` writes. The
// published JSON Schema (`run-report.schema.json` beside this package) describes the same
// document; a test holds every report the builder makes to it.

/** The version of the report's shape; a change that is not an addition raises it. */
export const RUN_REPORT_SCHEMA_VERSION = 1;

/** Where the JSON Schema of this version is published (the report's `$schema`). */
export const RUN_REPORT_SCHEMA_ID =
  "https://raw.githubusercontent.com/cursor-wrap/cursor-wrap/main/packages/report/run-report.schema.json";

/** Tokens, as the agent reported them (cursor-agent counts cache reads and writes apart). */
export interface TokenUsage {
  /** Input tokens not served from or written to the cache. */
  input_tokens: number;
  output_tokens: number;
  /** Input tokens served from the provider's cache. */
  cache_read_tokens: number;
  /** Input tokens written to the provider's cache. */
  cache_write_tokens: number;
}

/** Why an attempt, or the run, failed. */
export interface FailureReport {
  /**
   * `hang`, `budget`, `abnormal_exit`, or a failure kind the agent's output named (`auth`,
   * `usage-limit`, `overloaded`, `rate-limited`, `connection`, …).
   */
  kind: string;
  /** One readable line (or a few). */
  summary: string;
  /** What the agent said, when it said something. */
  detail: string | null;
  /** Why no recovery was left, when the recovery policy gave up. */
  gave_up: string | null;
}

/** A verdict of the hang monitor that ended a turn. */
export interface VerdictReport {
  verdict: "hang" | "linger" | "budget";
  /** The turn it ended (1 for the first of the run). */
  turn: number;
  /** When it was reached (ISO 8601). */
  at: string;
  /** The reason in one line, e.g. `no output for 60.0s (last event: thinking/delta)`. */
  summary: string;
  /** The monitor's reason as logged (`kind`, `idleMs`, the open calls, …). */
  reason: Record<string, unknown> | null;
}

/** One attempt at a prompt: one agent process (a retry is a new attempt). */
export interface AttemptReport {
  /** The turn of the run (1, 2, … across prompts and retries). */
  turn: number;
  /** Which attempt at its prompt this was (1 for the first). */
  attempt: number;
  /** The model asked for (`--model`, or the fallback the recovery switched to); null: the agent's default. */
  model: string | null;
  started_at: string;
  ended_at: string | null;
  duration_ms: number | null;
  /** `completed`, `hang`, `linger`, `budget`, `failed`, `abnormal`, `cancelled`, …; `running` until it ends. */
  outcome: string;
  tool_calls: number;
  usage: TokenUsage | null;
  session_id: string | null;
  /** The verdict that ended it, if any. */
  verdict: "hang" | "linger" | "budget" | null;
  /** The kill of its process tree, if it was killed. */
  killed: { reason: string; duration_ms: number | null; survivors: number } | null;
  failure: FailureReport | null;
  /** What came next, when it was retried. */
  retry: {
    action: string | null;
    kind: string | null;
    wait_ms: number | null;
    model: string | null;
    summary: string;
  } | null;
}

/** One tool call, as the report lists it (the slowest, and the refused). */
export interface ToolCallReport {
  call_id: string;
  /** `shell`, `read`, `edit`, `grep`, `mcp`, … */
  kind: string;
  /** What it did, in one line (a command, a path), as logged (redacted). */
  label: string | null;
  turn: number;
  started_at: string;
  /** Until it ended, or until the end of the run (or of the report) when it never did. */
  duration_ms: number;
  finished: boolean;
  /** The key of its result (`success`, `rejected`, `permissionDenied`, `error`, …); null if unfinished or not logged. */
  outcome: string | null;
}

/** The tool calls of one kind. */
export interface ToolKindReport {
  kind: string;
  count: number;
  /** Ended in a failure outcome other than a refusal (`error`, `timeout`, `failure`, …). */
  failed: number;
  /** Refused: `rejected`, `permissionDenied`, `readPermissionDenied`, `writePermissionDenied`. */
  denied: number;
  /** Never ended (killed with the agent, or still running). */
  unfinished: number;
  /** Time spent in them together, ms. */
  total_ms: number;
  /** The longest one, ms. */
  max_ms: number;
}

/** The tool calls of the run. */
export interface ToolCallsReport {
  total: number;
  failed: number;
  denied: number;
  unfinished: number;
  /** Per kind, the most used first. */
  by_kind: ToolKindReport[];
  /** The slowest calls, the slowest first (unfinished ones included). */
  slowest: ToolCallReport[];
  /** Refused calls, in order (at most {@link ReportLimits.deniedCalls}; `denied` counts all). */
  denied_calls: ToolCallReport[];
}

/** Something that stopped the run from outside, or the wrapper itself. */
export interface InterruptionReport {
  /** `signal` (SIGINT, SIGTERM, SIGHUP), `stdout` (its reader went away, a full disk), `error`, `crash`. */
  kind: "signal" | "stdout" | "error" | "crash";
  detail: string;
  at: string;
}

/** The report of one run (`schema_version` 1). */
export interface RunReport {
  $schema: string;
  schema_version: typeof RUN_REPORT_SCHEMA_VERSION;
  /** What wrote it. */
  tool: { name: string; version: string };
  /**
   * How the run ended: `completed`, `hang`, `linger`, `budget`, `failure`, `abnormal`,
   * `cancelled`, `signal SIGTERM`, `stdout EPIPE`, `error`, `crash`, `interrupted` (the process
   * exited before its log was closed); `running` while it runs. A report that still says
   * `running` after its process is gone was never finished: the process was killed (SIGKILL,
   * the OOM killer) or the machine went down.
   */
  outcome: string;
  finished: boolean;
  /** The wrapper's exit code; null while running. */
  exit_code: number | null;
  /** The run deserves a look (a hang, linger, budget or error): the log is flagged too. */
  flagged: boolean;
  started_at: string | null;
  ended_at: string | null;
  /** When this document was written. */
  updated_at: string;
  duration_ms: number | null;
  /** The wrapper's process id (to tell a running report from one left by a killed process). */
  pid: number | null;
  mode: "print" | "interactive" | null;
  session_id: string | null;
  /** How to go on with the session, e.g. `cursor-wrap --resume 9e61…`. */
  resume_command: string | null;
  /** The session log (it holds every line of agent output and every decision). */
  log_path: string | null;
  agent: { bin: string | null; version: string | null };
  /** The models asked for, in the order they were used (`default`: the agent's own). */
  models: string[];
  turns: number;
  attempts: AttemptReport[];
  verdicts: VerdictReport[];
  tool_calls: ToolCallsReport;
  /** Summed over the attempts that reported usage; null when none did. */
  usage: TokenUsage | null;
  /** The last lines the agent printed on stderr (not the JSON events it mirrors there). */
  stderr_tail: string[];
  /** What the run failed on, when it did not complete. */
  failure: FailureReport | null;
  interruptions: InterruptionReport[];
}

/** How much of each list a report keeps. */
export interface ReportLimits {
  /** Slowest tool calls listed. Default 10. */
  slowestToolCalls: number;
  /** Refused tool calls listed. Default 50. */
  deniedCalls: number;
  /** Lines of agent stderr kept. Default 20. */
  stderrLines: number;
  /** Longest line of stderr, label or summary kept, characters. Default 2000. */
  lineLength: number;
}

/** The default {@link ReportLimits}. */
export const DEFAULT_REPORT_LIMITS: Readonly<ReportLimits> = {
  slowestToolCalls: 10,
  deniedCalls: 50,
  stderrLines: 20,
  lineLength: 2_000,
};

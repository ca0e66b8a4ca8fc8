import { homedir } from "node:os";
import { join } from "node:path";
// The packages' defaults come from their `/defaults` entries: this table is in the static graph
// of every command, `--version` and `--help` included, which must not load the packages
// themselves (pino, the parsers, the process code).
import { DEFAULT_PARSE_CAP } from "@cursor-wrap/events/defaults";
import type { OutputFormat } from "@cursor-wrap/format";
import { DEFAULT_RETENTION_MS, LEVELS, type LevelName } from "@cursor-wrap/logger/defaults";
import {
  DEFAULT_BACKGROUND_WAIT_MS,
  DEFAULT_LIVENESS,
  DEFAULT_THRESHOLDS,
  DEFAULT_TOOL_TIMEOUTS,
  MAX_TIMER_DELAY_MS,
} from "@cursor-wrap/monitor/defaults";
import {
  commandWords,
  DEFAULT_NOTIFY_TIMEOUT_MS,
  NOTIFY_EVENTS,
  type NotifyEvent,
  NotifyOptionError,
  parseNotifyEvents,
} from "@cursor-wrap/notify/options";
import { DEFAULT_BACKOFF, DEFAULT_POLICY } from "@cursor-wrap/recovery/defaults";
import { DEFAULT_DRAIN_GRACE_MS, DEFAULT_KILL_GRACE_MS } from "@cursor-wrap/supervisor/defaults";
import { UsageError } from "../usage-error.js";
import { flag, parseBoolean } from "./flag-table.js";
import { parseDuration, parseSize, parseToolTimeouts, showDuration, showSize } from "./units.js";

/** How the run report is also presented: `json` (the file only) or `github` (job summary, annotations). */
export type ReportFormat = "auto" | "json" | "github";

/** How much of the agent's stderr is shown: all of it, non-JSON lines only, or nothing. */
export type StderrMode = "all" | "errors" | "none";

/** What stdin (or the prompt) is: the prompt's text, or the adapter contract's turn input. */
export type InputFormat = "text" | "turn";

/** One of `choices`, exactly. */
export function oneOf<T extends string>(choices: readonly T[]) {
  return (text: string, source: string): T => {
    if (!(choices as readonly string[]).includes(text)) {
      throw new UsageError(
        `${source} must be one of ${choices.join(", ")}, not ${JSON.stringify(text)}`,
      );
    }
    return text as T;
  };
}

/** Text; empty: none. */
export const optionalText = (value: string): string | undefined => value || undefined;
/** A switch as help shows it. */
export const showOnOff = (value: boolean): string => (value ? "on" : "off");

/** `0`, `off` or `none`: no limit. */
const optionalDuration = (value: string, source: string): number | undefined =>
  /^\s*(off|none)\s*$/i.test(value) ? undefined : parseDuration(value, source) || undefined;

/** A duration that may be `off` (no limit): the monitor's timer reaches any deadline in steps. */
export function durationOrOff(value: string, source: string): number {
  return /^\s*(off|none)\s*$/i.test(value)
    ? Number.POSITIVE_INFINITY
    : parseDuration(value, source);
}

/** A size of at least one byte: a line cap of 0 would make every line too long. */
export function positiveSize(value: string, source: string): number {
  const bytes = parseSize(value, source);
  if (bytes < 1) throw new UsageError(`${source} must be at least 1 byte`);
  return bytes;
}

/** A duration above 0, or `off`: a limit of 0 would fail everything at once. */
export function positiveDurationOrOff(value: string, source: string): number {
  const ms = durationOrOff(value, source);
  if (ms <= 0) throw new UsageError(`${source} must be longer than 0 (or off)`);
  return ms;
}

/** A grace waited out with one timer: at most what `setTimeout` can wait (about 24.8 days). */
function graceDuration(value: string, source: string): number {
  const ms = parseDuration(value, source);
  if (ms > MAX_TIMER_DELAY_MS) {
    throw new UsageError(`${source} must be at most 24 days, not ${JSON.stringify(value)}`);
  }
  return ms;
}

/** A duration as help shows it; `Infinity`: `off`. */
export const showDurationOrOff = (ms: number): string =>
  Number.isFinite(ms) ? showDuration(ms) : "off";

/** A whole number >= 0. */
function wholeNumber(value: string, source: string): number {
  const number = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number)) {
    throw new UsageError(`${source} takes a whole number >= 0, not ${JSON.stringify(value)}`);
  }
  return number;
}

/** A comma-separated list of words (`auto,gpt-5`); empty: none. */
function wordList(pattern: RegExp, what: string) {
  return (value: string, source: string): string[] => {
    const words = value
      .split(",")
      .map((word) => word.trim())
      .filter(Boolean);
    const bad = words.find((word) => !pattern.test(word));
    if (bad !== undefined) {
      throw new UsageError(`${source} takes ${what}, not ${JSON.stringify(bad)}`);
    }
    return words;
  };
}

const showList = (words: readonly string[]): string => (words.length ? words.join(",") : "none");

/**
 * Silence before the first output that counts as a hang, ms: since May 2026 headless runs wait
 * for slow stdio MCP servers to start before printing anything.
 */
export const DEFAULT_FIRST_OUTPUT_MS = 180_000;

/** Where session logs go unless `--log-dir` (or its variable) says otherwise. */
export function defaultLogDir(): string {
  return join(homedir(), ".cursor-wrap", "logs");
}

/** A path as help shows it, the home directory as `~`. */
export const showHome = (path: string): string =>
  path.startsWith(homedir()) ? `~${path.slice(homedir().length)}` : path;

const showToolTimeouts = (timeouts: Record<string, number>): string =>
  Object.entries(timeouts)
    .map(([kind, ms]) => `${kind}=${showDurationOrOff(ms)}`)
    .join(",");

/**
 * Every flag of cursor-wrap's run command (R-CLI1), in help order: the single place a flag is
 * stated. Its option and its type (`RunOptions` is this table's), parser, default (help shows
 * it, computed from the value), variable and, for a threshold, the monitor option it feeds all
 * come from its row; `logs`, `replay` and `acp` take rows of it into their own tables.
 */
export const FLAGS = [
  flag({
    key: "print",
    name: "print",
    short: "p",
    group: "mode",
    description: "One prompt, one turn, then exit (scripts and CI)",
    parse: parseBoolean,
    default: false,
    show: showOnOff,
  }),
  flag({
    key: "outputFormat",
    name: "output-format",
    group: "mode",
    placeholder: "<format>",
    description:
      "stream-json (the agent's events, byte for byte), json (the result only), text (for people; to a pipe, the final answer only) or events (the adapter contract's normalised stream)",
    parse: oneOf<OutputFormat>(["stream-json", "json", "text", "events"]),
    default: ({ print }) => (print ? "stream-json" : "text"),
  }),
  flag({
    key: "inputFormat",
    name: "input-format",
    group: "mode",
    placeholder: "<format>",
    description:
      'text (the prompt as it is) or turn (stdin is one {"type":"turn","turnId","messages","tools"} object; with -p)',
    parse: oneOf<InputFormat>(["text", "turn"]),
    default: "text",
  }),
  flag({
    key: "enforceTools",
    name: "enforce-tools",
    group: "mode",
    description:
      "Stop the run at a tool call the turn's tools do not allow (the agent runs its own tools: the call has already started)",
    parse: parseBoolean,
    default: false,
    show: showOnOff,
  }),
  flag({
    key: "resume",
    name: "resume",
    group: "mode",
    placeholder: "<session-id>",
    description: "Resume this agent session",
    parse: optionalText,
    default: undefined,
    show: () => "a new session",
  }),
  flag({
    key: "idleTimeoutMs",
    monitor: "idleTimeoutMs",
    name: "idle-timeout",
    group: "detection",
    placeholder: "<duration>",
    description: "Silence with no tool running that counts as a hang (off: never)",
    parse: positiveDurationOrOff,
    default: DEFAULT_THRESHOLDS.idleTimeoutMs,
    show: showDurationOrOff,
  }),
  flag({
    key: "toolGraceMs",
    monitor: "toolGraceMs",
    name: "tool-grace",
    group: "detection",
    placeholder: "<duration>",
    description: "Extra time a tool call gets past its declared timeout",
    parse: parseDuration,
    default: DEFAULT_THRESHOLDS.toolGraceMs,
    show: showDuration,
  }),
  flag({
    key: "toolTimeouts",
    monitor: "toolTimeouts",
    name: "tool-timeout",
    list: true,
    group: "detection",
    placeholder: "<kind=duration,...>",
    description: "Allowance per tool kind for calls that declare no timeout",
    parse: (value: string, source: string): Record<string, number> => ({
      ...DEFAULT_TOOL_TIMEOUTS,
      ...parseToolTimeouts(value, source),
    }),
    default: () => ({ ...DEFAULT_TOOL_TIMEOUTS }),
    show: showToolTimeouts,
  }),
  flag({
    key: "exitGraceMs",
    monitor: "exitGraceMs",
    name: "exit-grace",
    group: "detection",
    placeholder: "<duration>",
    description: "Time the agent gets to exit after its result before it is killed (off: never)",
    parse: durationOrOff,
    default: DEFAULT_THRESHOLDS.exitGraceMs,
    show: showDurationOrOff,
  }),
  flag({
    key: "firstOutputMs",
    monitor: "firstOutputMs",
    name: "first-output-timeout",
    group: "detection",
    placeholder: "<duration>",
    description:
      "Silence before the agent's first output that counts as a hang (start-up waits for MCP servers; off: never)",
    parse: positiveDurationOrOff,
    default: DEFAULT_FIRST_OUTPUT_MS,
    show: showDurationOrOff,
  }),
  flag({
    key: "maxQuietMs",
    monitor: "liveness.maxQuietMs",
    name: "max-quiet",
    group: "detection",
    placeholder: "<duration>",
    description:
      "Silence that is a hang even while the agent's processes visibly work (off: none; 0: silence alone decides)",
    parse: durationOrOff,
    default: DEFAULT_LIVENESS.maxQuietMs,
    show: showDurationOrOff,
  }),
  flag({
    key: "maxDrainMs",
    monitor: "liveness.maxDrainMs",
    name: "max-drain",
    group: "detection",
    placeholder: "<duration>",
    description:
      "How long after its result an agent that is still visibly busy (draining background work) may take to exit",
    parse: durationOrOff,
    default: DEFAULT_LIVENESS.maxDrainMs,
    show: showDurationOrOff,
  }),
  flag({
    key: "backgroundWaitMs",
    monitor: "backgroundWaitMs",
    name: "background-wait",
    group: "detection",
    placeholder: "<duration>",
    description:
      "How long the agent may wait, silent, on a shell it moved to the background (off: never)",
    parse: positiveDurationOrOff,
    default: DEFAULT_BACKGROUND_WAIT_MS,
    show: showDurationOrOff,
  }),
  flag({
    key: "maxTurnMs",
    monitor: "maxTurnMs",
    name: "max-turn-duration",
    group: "detection",
    placeholder: "<duration>",
    description: "Wall-clock budget per turn (0 or off: none)",
    parse: optionalDuration,
    default: undefined,
    show: (value) => (value === undefined ? "off" : showDuration(value)),
  }),
  flag({
    key: "killGraceMs",
    name: "kill-grace",
    group: "detection",
    placeholder: "<duration>",
    description: "Time between SIGTERM and SIGKILL when killing the agent's process tree",
    parse: graceDuration,
    default: DEFAULT_KILL_GRACE_MS,
    show: showDuration,
  }),
  flag({
    key: "drainGraceMs",
    name: "drain-grace",
    group: "detection",
    placeholder: "<duration>",
    description: "How long the agent's stdout may stay open after it exits",
    parse: graceDuration,
    default: DEFAULT_DRAIN_GRACE_MS,
    show: showDuration,
  }),
  flag({
    key: "tickIntervalMs",
    name: "tick-interval",
    group: "detection",
    placeholder: "<duration>",
    description: "Accepted for compatibility; detection is event-driven and needs no tick",
    parse: (value, source): number | undefined => parseDuration(value, source),
    default: undefined,
    show: (value) => (value === undefined ? "none" : showDuration(value)),
  }),
  flag({
    key: "promptAfterHang",
    name: "prompt-after-hang",
    group: "recovery",
    placeholder: "<text>",
    description: "After a hang, resume the session with this prompt automatically",
    parse: optionalText,
    default: undefined,
    show: () => "none",
  }),
  flag({
    key: "maxHangRetries",
    name: "max-hang-retries",
    group: "recovery",
    placeholder: "<n>",
    description: "Automatic retries after hangs in a row",
    parse: wholeNumber,
    default: DEFAULT_POLICY.hang.maxRetries,
  }),
  flag({
    key: "maxRetries",
    name: "max-retries",
    group: "recovery",
    placeholder: "<n>",
    description:
      "Retries after a transient failure (connection lost, rate limited, overloaded, stream ended mid-turn), per prompt and model, resuming the session when there is one (0: none)",
    parse: wholeNumber,
    default: DEFAULT_POLICY.maxRetries,
  }),
  flag({
    key: "retryBackoffMs",
    name: "retry-backoff",
    group: "recovery",
    placeholder: "<duration>",
    description:
      "Wait before the first retry; each next one doubles, at most 5m (or this, if longer), and each is a random point between half and all of it (2s: 1-2s, 2-4s, 4-8s)",
    parse(value, source) {
      const ms = parseDuration(value, source);
      if (ms <= 0) throw new UsageError(`${source} must be longer than 0`);
      return ms;
    },
    default: DEFAULT_BACKOFF.baseMs,
    show: showDuration,
  }),
  flag({
    key: "fallbackModels",
    name: "fallback-model",
    list: true,
    group: "recovery",
    placeholder: "<models>",
    description:
      "Models to go on with, in order, on a usage limit, a model the plan cannot use or the agent does not know, an unsupported protocol, or a model that stays overloaded or rate limited: auto (Cursor's Auto), suggested (the model the agent names), or model names",
    parse: wordList(/^[\w.:/@[\]=-]+$/, "model names separated by commas"),
    default: (): string[] => [],
    show: showList,
  }),
  flag({
    key: "waitForReset",
    name: "wait-for-reset",
    group: "recovery",
    description:
      "On a usage limit that says when it resets, wait for the reset (at most --max-wait; a countdown on a terminal, Ctrl+C stops) and resume, before trying --fallback-model",
    parse: parseBoolean,
    default: DEFAULT_POLICY.waitForReset,
    show: showOnOff,
  }),
  flag({
    key: "maxWaitMs",
    name: "max-wait",
    group: "recovery",
    placeholder: "<duration>",
    description: "The longest wait for a reset with --wait-for-reset",
    parse: parseDuration,
    default: DEFAULT_POLICY.maxWaitMs,
    show: showDuration,
  }),
  flag({
    key: "authProfiles",
    name: "auth-profile",
    list: true,
    group: "recovery",
    placeholder: "<names>",
    description:
      "Credential sets to try in order on an auth failure, each once: CURSOR_WRAP_AUTH_<NAME> holds an API key, or CURSOR_WRAP_AUTH_<NAME>_FILE names a file holding one (read at start, never shown or logged)",
    parse: wordList(
      /^[A-Za-z0-9_-]+$/,
      "profile names (letters, digits, - and _) separated by commas",
    ),
    default: (): string[] => [],
    show: showList,
  }),
  flag({
    key: "mcpWatchdog",
    name: "mcp-watchdog",
    group: "recovery",
    description:
      "For the run, put Cursor's stdio MCP servers (~/.cursor/mcp.json, .cursor/mcp.json) behind the MCP watchdog, and give the files back after",
    parse: parseBoolean,
    default: false,
    show: showOnOff,
  }),
  flag({
    key: "agentBin",
    name: "agent-bin",
    group: "agent",
    placeholder: "<path>",
    description: "The cursor-agent binary",
    parse: optionalText,
    default: undefined,
    show: () => "cursor-agent, then agent, on PATH, then ~/.local/bin",
  }),
  flag({
    key: "force",
    name: "force",
    group: "agent",
    description:
      "Pass --force to cursor-agent unless -f, --force or --yolo is given (cursor-agent's own default is off)",
    parse: parseBoolean,
    default: true,
    show: showOnOff,
    negated:
      "Leave --force out: cursor-agent then rejects every action that would need approval (--print cannot ask)",
  }),
  flag({
    key: "pty",
    name: "pty",
    group: "agent",
    description: "Run the agent on a pseudo-terminal (needs @lydell/node-pty or node-pty)",
    parse: parseBoolean,
    default: false,
    show: showOnOff,
  }),
  flag({
    key: "stderrMode",
    name: "stderr",
    group: "agent",
    placeholder: "<mode>",
    description: "Agent stderr to show: all, errors (non-JSON lines) or none",
    parse: oneOf<StderrMode>(["all", "errors", "none"]),
    default: "errors",
  }),
  flag({
    key: "logDir",
    name: "log-dir",
    group: "logs",
    placeholder: "<dir>",
    description: "Directory of the session logs",
    parse: (value) => value || defaultLogDir(),
    default: defaultLogDir,
    show: showHome,
  }),
  flag({
    key: "logLevel",
    name: "log-level",
    group: "logs",
    placeholder: "<level>",
    description: "Console log level (on stderr)",
    parse: oneOf(Object.keys(LEVELS) as LevelName[]),
    default: ({ print }) => (print ? "info" : "warn"),
  }),
  flag({
    key: "logRetentionMs",
    name: "log-retention",
    group: "logs",
    placeholder: "<duration>",
    description: "Delete logs older than this (flagged ones: twice as long)",
    parse: parseDuration,
    default: DEFAULT_RETENTION_MS,
    show: showDuration,
  }),
  flag({
    key: "redact",
    name: "redact",
    group: "logs",
    description: "Redact secrets in the log file",
    parse: parseBoolean,
    default: true,
    show: showOnOff,
    negated: "Keep secrets in the log file as they were",
  }),
  flag({
    key: "parseCap",
    name: "parse-cap",
    group: "logs",
    placeholder: "<size>",
    description: "Longest line that is parsed; longer lines are forwarded unparsed",
    parse: positiveSize,
    default: DEFAULT_PARSE_CAP,
    show: showSize,
  }),
  flag({
    key: "reportFile",
    name: "report",
    group: "operations",
    placeholder: "<file>",
    description:
      "Write the run report (JSON: outcome, attempts, verdicts, tool calls, usage, how to resume) to this file at every ending",
    parse: optionalText,
    default: undefined,
    show: (value) => value ?? "none",
  }),
  flag({
    key: "reportFormat",
    name: "report-format",
    group: "operations",
    placeholder: "<format>",
    description:
      "json, or github: also a job summary ($GITHUB_STEP_SUMMARY) and annotations; auto: github when GITHUB_ACTIONS=true",
    parse: oneOf<ReportFormat>(["auto", "json", "github"]),
    default: "auto",
  }),
  flag({
    key: "otel",
    name: "otel",
    group: "operations",
    description:
      "Export an OpenTelemetry trace of the run over OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT, default localhost:4318); the OTEL_* variables can ask for it too",
    parse: parseBoolean,
    default: false,
    show: showOnOff,
  }),
  flag({
    key: "onVerdict",
    name: "on-verdict",
    group: "operations",
    placeholder: "<command>",
    description:
      "Run this command (no shell: write sh -c '…' for one) on a hang, linger, budget, retry, gave-up and done, the event as JSON on stdin",
    parse: (value, source) =>
      value.trim() === "" ? undefined : asUsageError(() => commandWords(value, source)),
    default: undefined,
    show: (value) => (value === undefined ? "none" : value.join(" ")),
  }),
  flag({
    key: "onVerdictEvents",
    name: "on-verdict-events",
    list: true,
    group: "operations",
    placeholder: "<events>",
    description: `The events --on-verdict and --notify are told of, among ${NOTIFY_EVENTS.join(", ")}`,
    parse: (value, source) =>
      asUsageError(() => [...parseNotifyEvents(value, source)] as NotifyEvent[]),
    default: (): NotifyEvent[] => [...NOTIFY_EVENTS],
    show: showList,
  }),
  flag({
    key: "notifyUrl",
    name: "notify",
    group: "operations",
    placeholder: "<url>",
    description:
      "POST each notification as JSON with a text field (a Slack or Teams incoming webhook) to this URL",
    parse: parseWebhookUrl,
    default: undefined,
    show: (value) => (value === undefined ? "none" : "a URL"),
  }),
  flag({
    key: "notifyTimeoutMs",
    name: "notify-timeout",
    group: "operations",
    placeholder: "<duration>",
    description: "How long a notification's command or webhook may take before it is given up",
    parse(value, source) {
      const ms = parseDuration(value, source);
      if (ms < 1) throw new UsageError(`${source} must be more than 0`);
      return ms;
    },
    default: DEFAULT_NOTIFY_TIMEOUT_MS,
    show: showDuration,
  }),
];

/** A notification setting's error as a usage error (it names the flag). */
function asUsageError<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (NotifyOptionError.isInstance(error)) throw new UsageError(error.message);
    throw error;
  }
}

/** An http(s) URL; its text is never echoed (a webhook's path is its secret). */
function parseWebhookUrl(value: string, source: string): string | undefined {
  if (value === "") return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${source} takes an http:// or https:// URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new UsageError(`${source} takes an http:// or https:// URL, not ${url.protocol}`);
  }
  return value;
}

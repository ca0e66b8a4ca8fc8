import { homedir } from "node:os";
import { join } from "node:path";
import { DEFAULT_PARSE_CAP } from "@cursor-wrap/events";
import type { OutputFormat } from "@cursor-wrap/format";
import type { LevelName } from "@cursor-wrap/logger";
import {
  DEFAULT_THRESHOLDS,
  DEFAULT_TOOL_TIMEOUTS,
  type MonitorOptions,
} from "@cursor-wrap/monitor";
import { closest, distance } from "fastest-levenshtein";
import { parseDuration, parseSize, parseToolTimeouts } from "./units.js";
import { UsageError } from "./usage-error.js";

type FlagKind = "boolean" | "string" | "duration" | "integer" | "size" | "tool-timeouts";

/** One command-line flag: its names, value, default, environment variable and help. */
export interface FlagSpec {
  /** Long name without dashes: `idle-timeout`. */
  name: string;
  short?: string;
  kind: FlagKind;
  /** Placeholder in help: `<duration>`. */
  value?: string;
  /** Allowed values, for enumerations. */
  choices?: readonly string[];
  /** The default, as shown in help. */
  defaultText: string;
  description: string;
  /** A `--no-<name>` form exists (the flag is on by default). */
  negatable?: boolean;
}

/** Every flag of the run command (R-CLI1), in help order. */
export const FLAGS: readonly FlagSpec[] = [
  {
    name: "print",
    short: "p",
    kind: "boolean",
    defaultText: "off",
    description: "One prompt, one turn, then exit (scripts and CI)",
  },
  {
    name: "output-format",
    kind: "string",
    value: "<format>",
    choices: ["stream-json", "json", "text"],
    defaultText: "stream-json with -p, text without",
    description: "Output: the agent's stream-json, the json result only, or text for people",
  },
  {
    name: "resume",
    kind: "string",
    value: "<session-id>",
    defaultText: "a new session",
    description: "Resume this agent session",
  },
  {
    name: "idle-timeout",
    kind: "duration",
    value: "<duration>",
    defaultText: "60s",
    description: "Silence with no tool running that counts as a hang",
  },
  {
    name: "tool-grace",
    kind: "duration",
    value: "<duration>",
    defaultText: "30s",
    description: "Extra time a tool call gets past its declared timeout",
  },
  {
    name: "tool-timeout",
    kind: "tool-timeouts",
    value: "<kind=duration,...>",
    defaultText: "mcp=10m,task=30m,await=10m",
    description: "Allowance per tool kind for calls that declare no timeout",
  },
  {
    name: "exit-grace",
    kind: "duration",
    value: "<duration>",
    defaultText: "10s",
    description: "Time the agent gets to exit after its result before it is killed",
  },
  {
    name: "max-turn-duration",
    kind: "duration",
    value: "<duration>",
    defaultText: "off",
    description: "Wall-clock budget per turn (0 or off: none)",
  },
  {
    name: "kill-grace",
    kind: "duration",
    value: "<duration>",
    defaultText: "3s",
    description: "Time between SIGTERM and SIGKILL when killing the agent's process tree",
  },
  {
    name: "drain-grace",
    kind: "duration",
    value: "<duration>",
    defaultText: "2s",
    description: "How long the agent's stdout may stay open after it exits",
  },
  {
    name: "tick-interval",
    kind: "duration",
    value: "<duration>",
    defaultText: "none",
    description: "Accepted for compatibility; detection is event-driven and needs no tick",
  },
  {
    name: "prompt-after-hang",
    kind: "string",
    value: "<text>",
    defaultText: "none",
    description: "After a hang, resume the session with this prompt automatically",
  },
  {
    name: "max-hang-retries",
    kind: "integer",
    value: "<n>",
    defaultText: "3",
    description: "Automatic retries after hangs in a row",
  },
  {
    name: "agent-bin",
    kind: "string",
    value: "<path>",
    defaultText: "cursor-agent on PATH",
    description: "The cursor-agent binary",
  },
  {
    name: "model",
    kind: "string",
    value: "<model>",
    defaultText: "the agent's default",
    description: "Model to pass to cursor-agent",
  },
  {
    name: "workspace",
    kind: "string",
    value: "<dir>",
    defaultText: "none",
    description: "Workspace directory to pass to cursor-agent",
  },
  {
    name: "force",
    kind: "boolean",
    defaultText: "on",
    negatable: true,
    description: "Pass --force to cursor-agent (--no-force to leave it out)",
  },
  {
    name: "pty",
    kind: "boolean",
    defaultText: "off",
    description: "Run the agent on a pseudo-terminal (needs @lydell/node-pty or node-pty)",
  },
  {
    name: "stderr",
    kind: "string",
    value: "<mode>",
    choices: ["all", "errors", "none"],
    defaultText: "errors",
    description: "Agent stderr to show: all, errors (non-JSON lines) or none",
  },
  {
    name: "log-dir",
    kind: "string",
    value: "<dir>",
    defaultText: "~/.cursor-wrap/logs",
    description: "Directory of the session logs",
  },
  {
    name: "log-level",
    kind: "string",
    value: "<level>",
    choices: ["debug", "info", "warn", "error", "silent"],
    defaultText: "info with -p, warn without",
    description: "Console log level (on stderr)",
  },
  {
    name: "log-retention",
    kind: "duration",
    value: "<duration>",
    defaultText: "7d",
    description: "Delete logs older than this (flagged ones: twice as long)",
  },
  {
    name: "redact",
    kind: "boolean",
    defaultText: "on",
    negatable: true,
    description: "Redact secrets in the log file (--no-redact to keep them)",
  },
  {
    name: "parse-cap",
    kind: "size",
    value: "<size>",
    defaultText: "16MiB",
    description: "Longest line that is parsed; longer lines are forwarded unparsed",
  },
];

/** Everything a run needs, resolved from flags, environment and defaults. */
export interface RunOptions {
  print: boolean;
  outputFormat: OutputFormat;
  resume: string | undefined;
  idleTimeoutMs: number;
  toolGraceMs: number;
  toolTimeouts: Record<string, number>;
  exitGraceMs: number;
  maxTurnMs: number | undefined;
  killGraceMs: number;
  drainGraceMs: number;
  promptAfterHang: string | undefined;
  maxHangRetries: number;
  agentBin: string;
  model: string | undefined;
  workspace: string | undefined;
  force: boolean;
  pty: boolean;
  stderrMode: "all" | "errors" | "none";
  logDir: string;
  logLevel: LevelName;
  logRetentionMs: number;
  redact: boolean;
  parseCap: number;
  /** Arguments after `--`, for cursor-agent. */
  passthrough: string[];
  /** The prompt given as arguments, if any. */
  prompt: string | undefined;
}

/** The environment variable of a flag: `CURSOR_WRAP_<FLAG_IN_CAPS>`. */
export function envName(flag: string): string {
  return `CURSOR_WRAP_${flag.toUpperCase().replace(/-/g, "_")}`;
}

const camel = (name: string): string =>
  name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());

/** Whether the command line (before `--`) sets a flag, in any of its forms. */
function givenOnCommandLine(spec: FlagSpec, argv: readonly string[]): boolean {
  const forms = [
    `--${spec.name}`,
    ...(spec.negatable ? [`--no-${spec.name}`] : []),
    ...(spec.short ? [`-${spec.short}`] : []),
  ];
  for (const arg of argv) {
    if (arg === "--") return false;
    if (forms.some((form) => arg === form || arg.startsWith(`${form}=`))) return true;
  }
  return false;
}

function envBoolean(value: string, name: string): boolean {
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off|)$/i.test(value)) return false;
  throw new UsageError(`${name} must be true or false, not ${JSON.stringify(value)}`);
}

/**
 * Resolve the run options (R-CLI1): a flag on the command line wins, then its environment
 * variable `CURSOR_WRAP_<FLAG>`, then the default. Every value is validated here, once.
 */
export function resolveRunOptions(
  parsed: Record<string, unknown>,
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  positional: readonly string[],
): RunOptions {
  const raw = new Map<string, { value: unknown; source: string }>();
  for (const spec of FLAGS) {
    if (givenOnCommandLine(spec, argv)) {
      raw.set(spec.name, { value: parsed[camel(spec.name)], source: `--${spec.name}` });
      continue;
    }
    const variable = envName(spec.name);
    if (env[variable] !== undefined) {
      raw.set(spec.name, { value: env[variable], source: variable });
    } else if (spec.negatable && env[envName(`no-${spec.name}`)] !== undefined) {
      const negated = envName(`no-${spec.name}`);
      raw.set(spec.name, { value: !envBoolean(env[negated] ?? "", negated), source: negated });
    }
  }

  const text = (name: string): string | undefined => {
    const entry = raw.get(name);
    if (entry === undefined || entry.value === undefined) return undefined;
    if (entry.value === true || entry.value === false) {
      throw new UsageError(`${entry.source} needs a value`);
    }
    if (Array.isArray(entry.value)) return String(entry.value.at(-1));
    return String(entry.value);
  };
  const bool = (name: string, fallback: boolean): boolean => {
    const entry = raw.get(name);
    if (entry === undefined) return fallback;
    return typeof entry.value === "boolean"
      ? entry.value
      : envBoolean(String(entry.value), entry.source);
  };
  const duration = (name: string, fallback: number): number => {
    const value = text(name);
    return value === undefined ? fallback : parseDuration(value, raw.get(name)!.source);
  };
  const choice = <T extends string>(name: string, fallback: T): T => {
    const value = text(name);
    if (value === undefined) return fallback;
    const spec = FLAGS.find((flag) => flag.name === name)!;
    if (!spec.choices!.includes(value)) {
      throw new UsageError(
        `${raw.get(name)!.source} must be one of ${spec.choices!.join(", ")}, not ${JSON.stringify(value)}`,
      );
    }
    return value as T;
  };

  const print = bool("print", false);
  const maxTurn = text("max-turn-duration");
  const retries = text("max-hang-retries");
  const maxHangRetries = retries === undefined ? 3 : Number(retries);
  if (!Number.isInteger(maxHangRetries) || maxHangRetries < 0) {
    throw new UsageError(
      `--max-hang-retries takes a whole number >= 0, not ${JSON.stringify(retries)}`,
    );
  }
  const toolTimeoutText = text("tool-timeout");
  const parseCapText = text("parse-cap");
  const parseCap =
    parseCapText === undefined
      ? DEFAULT_PARSE_CAP
      : parseSize(parseCapText, raw.get("parse-cap")!.source);
  if (parseCap < 1) throw new UsageError("--parse-cap must be at least 1 byte");
  const idleTimeoutMs = duration("idle-timeout", DEFAULT_THRESHOLDS.idleTimeoutMs);
  if (idleTimeoutMs <= 0) throw new UsageError("--idle-timeout must be longer than 0");
  const prompt = positional.length > 0 ? positional.join(" ") : undefined;
  const passthrough = Array.isArray(parsed["--"]) ? (parsed["--"] as unknown[]).map(String) : [];

  return {
    print,
    outputFormat: choice<OutputFormat>("output-format", print ? "stream-json" : "text"),
    resume: text("resume") || undefined,
    idleTimeoutMs,
    toolGraceMs: duration("tool-grace", DEFAULT_THRESHOLDS.toolGraceMs),
    toolTimeouts: {
      ...DEFAULT_TOOL_TIMEOUTS,
      ...(toolTimeoutText === undefined
        ? {}
        : parseToolTimeouts(toolTimeoutText, raw.get("tool-timeout")!.source)),
    },
    exitGraceMs: duration("exit-grace", DEFAULT_THRESHOLDS.exitGraceMs),
    maxTurnMs:
      maxTurn === undefined || /^(off|none)$/i.test(maxTurn)
        ? undefined
        : parseDuration(maxTurn, raw.get("max-turn-duration")!.source) || undefined,
    killGraceMs: duration("kill-grace", 3_000),
    drainGraceMs: duration("drain-grace", 2_000),
    promptAfterHang: text("prompt-after-hang") || undefined,
    maxHangRetries,
    agentBin: text("agent-bin") || "cursor-agent",
    model: text("model") || undefined,
    workspace: text("workspace") || undefined,
    force: bool("force", true),
    pty: bool("pty", false),
    stderrMode: choice("stderr", "errors"),
    logDir: text("log-dir") || defaultLogDir(),
    logLevel: choice<LevelName>("log-level", print ? "info" : "warn"),
    logRetentionMs: duration("log-retention", 7 * 86_400_000),
    redact: bool("redact", true),
    parseCap,
    passthrough,
    prompt: prompt?.trim() ? prompt : undefined,
  };
}

/** Where session logs go unless `--log-dir` (or its variable) says otherwise. */
export function defaultLogDir(): string {
  return join(homedir(), ".cursor-wrap", "logs");
}

/** The monitor's thresholds as the options set them (a live turn and `replay` alike). */
export function monitorOptions(options: RunOptions): MonitorOptions {
  return {
    idleTimeoutMs: options.idleTimeoutMs,
    toolGraceMs: options.toolGraceMs,
    exitGraceMs: options.exitGraceMs,
    toolTimeouts: options.toolTimeouts,
    ...(options.maxTurnMs === undefined ? {} : { maxTurnMs: options.maxTurnMs }),
  };
}

/** The closest known flag to an unknown one, for "did you mean". */
export function suggestFlag(unknown: string, known: readonly string[]): string | undefined {
  const target = unknown.replace(/^-+/, "");
  const best = closest(target, [...known]);
  return best && distance(target, best) <= Math.max(2, Math.floor(target.length / 3))
    ? best
    : undefined;
}

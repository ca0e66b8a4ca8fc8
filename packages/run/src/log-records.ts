// The session log's vocabulary: every decision record a run (and the CLI around it) writes,
// with the fields it carries and who shows or replays it. Everything that writes, filters or
// reads a record by name goes through this table.

import type { Usage } from "@cursor-wrap/events";
import {
  type RecordLevel as Level,
  SESSION_LOG_RECORDS,
  type SessionLog,
} from "@cursor-wrap/logger";
import type { MonitorOptions, Reason, Verdict } from "@cursor-wrap/monitor";
import type { FailureKind, RecoveryAction, UsageCounts } from "@cursor-wrap/recovery";
import { type KillStep, SUPERVISOR_RECORDS } from "@cursor-wrap/supervisor";
import type { CancelReason } from "./ending.js";
import type { ResourceStats } from "./resources.js";

/** A verdict that ends a turn. */
export type FinalVerdict = Exclude<Verdict, "ok" | "waiting">;

interface VerdictFields<Kind extends FinalVerdict> {
  verdict: Kind;
  reason: Reason;
  summary: string;
}

/** The fields of each decision record (snake_case, as written; `ts` is added by the logger). */
export interface RecordFields {
  /** The resolved options of the run. */
  options: {
    mode: "print" | "interactive";
    output_format: string;
    /** `turn`: the prompt came from the adapter contract's turn input. */
    input_format?: string;
    /** The turn input's id, when there is one. */
    turn_id?: string;
    /** The turn's allow-list of tools (their names), when it has one. */
    tools?: string[];
    enforce_tools?: boolean;
    /**
     * The monitor's options, as one object (an `Infinity` is written `null`): what `replay`
     * reads back. Logs written before had each threshold as a field of its own
     * (`idle_timeout_ms`, …); `replay` reads those too.
     */
    monitor: MonitorOptions;
    kill_grace_ms: number;
    drain_grace_ms: number;
    prompt_after_hang: string | undefined;
    max_hang_retries: number;
    max_retries: number;
    retry_backoff_ms: number;
    fallback_models: string[];
    wait_for_reset: boolean;
    max_wait_ms: number;
    /** Names only: an auth profile's credentials are never logged. */
    auth_profiles: string[];
    pty: boolean;
    parse_cap: number;
  };
  signal_received: { signal: NodeJS.Signals };
  /** Writing stdout failed: its reader went away (`EPIPE`), the disk is full (`ENOSPC`), …. */
  stdout_closed: { code: string | undefined; summary: string };
  run_failed: { err: unknown; summary: string };
  wrapper_crashed: { err: unknown };
  agent_spawn: {
    bin: string;
    /** From the install path (`…/versions/<version>/…`), when the agent lives there. */
    agent_version: string | undefined;
    args: string[];
    resume: string | undefined;
    pty: boolean;
    cwd: string;
    prompt_bytes: number;
    /** A fallback model the turn runs on, replacing the user's `--model`. */
    model?: string;
    /** The auth profile whose credentials the agent got (its name). */
    auth_profile?: string;
  };
  /** `token`: the run's token every process of it carries (MCP proxies record it too). */
  agent_started: { pid: number; agent_token: string };
  /** The agent updated itself between two turns of the session. */
  agent_version_changed: { from: string; to: string };
  /** The agent is newer than the newest version cursor-wrap was tested with (once a session). */
  agent_version_untested: { version: string; newest_tested: string; summary: string };
  /** The protocol version the agent's stream began with, and whether it is supported. */
  protocol_version: { version: string; supported: boolean; summary: string };
  tool_call_opened: {
    call_id: string;
    kind: string;
    label: string | undefined;
    timeout_ms: number | undefined;
    background: boolean | undefined;
  };
  /**
   * `outcome`: the key of the call's result (`success`, `rejected`, `permissionDenied`, `error`,
   * …; `none` without one), so denied and failed calls can be counted from the log.
   */
  tool_call_closed: { call_id: string; outcome?: string | undefined };
  /** A tool call the turn's allow-list does not allow; `enforced`: the agent was stopped. */
  tool_refused: {
    call_id: string;
    name: string;
    kind: "tool-not-allowed" | "tool-args-invalid";
    enforced: boolean;
    summary: string;
  };
  /** A tolerated oddity in the stream; `nth` counts this code's warnings in the turn. */
  monitor_warning: { code: string; call_id: string | undefined; summary: string; nth: number };
  /** Agent stderr lines counted instead of shown while the wrapper's stderr was behind. */
  agent_stderr_not_shown: { lines: number; summary: string };
  /** The last output of a killed agent, not forwarded because stdout's reader was behind. */
  output_dropped: { bytes: number; summary: string };
  /** At the end of a turn: how many warnings of each code there were past the first few. */
  monitor_warnings_repeated: { counts: Record<string, number>; summary: string };
  result_received: { is_error: boolean; duration_ms: number | undefined; usage: Usage | undefined };
  stall_warning: { kind: "idle" | "tool" | "background"; fires_in_ms: number; summary: string };
  /** A sample of the agent's process tree the monitor asked for (R-MON11); replay reads it. */
  liveness_sample: {
    cpu_ms: number | undefined;
    io_bytes: number | undefined;
    processes: number | undefined;
    pids: number[] | undefined;
    cost_ms: number | undefined;
  };
  /** The quiet agent's processes were working: no verdict. */
  quiet_but_working: {
    quiet_ms: number;
    span_ms: number;
    cpu_ms: number;
    io_bytes: number | undefined;
    summary: string;
  };
  /** A shell went on in the background: the agent may wait for it before its result. */
  background_work_started: { call_id: string; pid: number | undefined; label: string | undefined };
  /** The agent said background work ended (`undefined`: all of it). */
  background_work_ended: { id: string | undefined };
  hang_detected: VerdictFields<"hang">;
  linger_detected: VerdictFields<"linger">;
  budget_exceeded: VerdictFields<"budget">;
  turn_cancel_requested: { reason: CancelReason };
  agent_killed: {
    reason: string;
    code: number | null;
    signal: NodeJS.Signals | null;
    steps: KillStep[];
    survivors: number[];
    duration_ms: number;
  };
  agent_exited: { code: number | null; signal: NodeJS.Signals | null; duration_ms: number };
  turn_end: {
    turn: number;
    outcome: string;
    duration_ms: number;
    tool_calls: number;
    session_id: string | undefined;
    cancel: CancelReason | undefined;
    resources: ResourceStats;
    /** Which attempt at the prompt this was (1 for the first). */
    attempt?: number;
    /** The model it ran on, when a fallback replaced the user's. */
    model?: string | undefined;
    auth_profile?: string | undefined;
    /** The tokens it reported. */
    usage?: Usage | undefined;
  };
  /** The failure the run gave up on (and what it carried), with why no recovery was left. */
  agent_failure: {
    kind: FailureKind;
    detail: string;
    summary: string;
    transient?: boolean;
    reset_at?: string | undefined;
    fallback_model?: string | undefined;
    http_status?: number | undefined;
    /** Why the recovery policy stopped. */
    gave_up?: string;
  };
  abnormal_exit: {
    code: number | null;
    signal: NodeJS.Signals | null;
    summary: string;
    gave_up?: string;
  };
  /**
   * The next attempt at the prompt, and why (R-CLI4): a hang resumed with
   * `--prompt-after-hang`, a transient failure retried after a backoff, a fallback model, an
   * auth profile, a wait for a reset.
   */
  retry: {
    attempt: number;
    max_attempts: number;
    /** The prompt the next attempt is sent; undefined: the user's own prompt again. */
    prompt: string | undefined;
    session_id: string | undefined;
    /** The hang, for a retry after one. */
    reason?: Reason;
    summary: string;
    kind?: FailureKind;
    action?: Exclude<RecoveryAction, "give-up">;
    detail?: string;
    model?: string | undefined;
    auth_profile?: string | undefined;
    /** Waited before the next attempt, ms. */
    wait_ms?: number;
    /** A wait for a reset: until when. */
    until?: string | undefined;
    http_status?: number | undefined;
    fallback_model?: string | undefined;
  };
  /** A wait between attempts ended: waited out, or cut short (Ctrl+C, a signal). */
  wait_ended: {
    waited_ms: number;
    cancelled: boolean;
    signal: string | undefined;
    summary: string;
  };
  /**
   * The run gives up on a hang or an overrun budget (a failure the agent named says so in its
   * own record): the verdict, and why no recovery was left.
   */
  gave_up: {
    kind: "hang" | "budget";
    summary: string;
    gave_up: string;
  };
  /** A prompt took more than one attempt: what they cost together and each one. */
  attempts_summary: {
    attempts: Array<{
      attempt: number;
      model: string;
      auth_profile: string | undefined;
      outcome: string;
      failure: FailureKind | undefined;
      action: RecoveryAction | undefined;
      duration_ms: number;
      tool_calls: number;
      usage: UsageCounts | undefined;
      waited_ms: number;
    }>;
    usage: Record<string, number> | undefined;
    models: string[];
    waited_ms: number;
    duration_ms: number;
    tool_calls: number;
    summary: string;
  };
}

/** The name of a decision record the CLI writes. */
export type RecordName = keyof RecordFields;

/** How a record is written and who shows or replays it. */
export interface RecordSpec<Name extends RecordName = RecordName> {
  /** Log level, fixed or by the record's fields. */
  level: Level | ((fields: RecordFields[Name]) => Level);
  /** Routine records share a later fsync (R-LOG4); the rest are fsynced at once. */
  sync?: "soon";
  /**
   * Shown to people by something other than the console sink, which then skips it:
   * `session`, a one-line error on stderr; `text`, the text formatter (in text mode only).
   */
  shownBy?: "session" | "text";
  /**
   * A detail of what a text rendering for people shows (the kill behind "⚠ Hang detected"):
   * on the console beside such a rendering only at `--log-level debug`.
   */
  detailOfText?: true;
  /** What `cursor-wrap logs show` does with it; records at warn and above are shown anyway. */
  show?: "turn-start" | "verdict" | "retry" | "turn-end";
  /** What `cursor-wrap replay` does with it: the start or end of a turn, or a decision to list. */
  replay?: "turn-start" | "turn-exit" | "decided" | "liveness";
}

/** Warnings of one code per turn shown at warn; later ones are logged at debug. */
export const MONITOR_WARNINGS_SHOWN = 3;

/** Every decision record, how it is written, and who shows or replays it. */
export const RECORDS: { readonly [Name in RecordName]: RecordSpec<Name> } = {
  // The run's own course (its settings, the agent started, its result and exit, the turn's
  // end) is fsynced with the next batch, within 50 ms or at the end: one blocking fsync each
  // cost a clean `-p` run 7 of them, 2–5 ms apiece, before the agent started and after it
  // ended. Verdicts, kills and failures stay fsynced at once.
  options: { level: "debug", sync: "soon" },
  // The text rendering says "Cancelled" itself: no log line glued to its status line.
  signal_received: { level: "warn", shownBy: "text" },
  stdout_closed: { level: "warn" },
  run_failed: { level: "error", shownBy: "session" },
  wrapper_crashed: { level: "error" },
  agent_spawn: { level: "debug", sync: "soon", show: "turn-start", replay: "turn-start" },
  agent_started: { level: "debug", sync: "soon" },
  agent_version_changed: { level: "info" },
  agent_version_untested: { level: "info" },
  protocol_version: { level: (fields) => (fields.supported ? "debug" : "error") },
  tool_call_opened: { level: "debug", sync: "soon" },
  tool_call_closed: { level: "debug", sync: "soon" },
  tool_refused: { level: (fields) => (fields.enforced ? "error" : "warn") },
  // The first few of a code are shown; the rest are logged, and counted once at turn end.
  monitor_warning: {
    level: (fields) => (fields.nth <= MONITOR_WARNINGS_SHOWN ? "warn" : "debug"),
    sync: "soon",
  },
  monitor_warnings_repeated: { level: "info" },
  output_dropped: { level: "warn" },
  // Shown already, as it happened, by the line that says how many were not shown.
  agent_stderr_not_shown: { level: "debug" },
  result_received: { level: "debug", sync: "soon" },
  stall_warning: { level: "info", shownBy: "text", replay: "decided" },
  liveness_sample: { level: "debug", replay: "liveness" },
  quiet_but_working: { level: "info", shownBy: "text", replay: "decided" },
  background_work_started: { level: "info", sync: "soon" },
  background_work_ended: { level: "debug", sync: "soon" },
  hang_detected: { level: "error", shownBy: "text", show: "verdict", replay: "decided" },
  linger_detected: { level: "warn", shownBy: "text", show: "verdict", replay: "decided" },
  budget_exceeded: { level: "error", shownBy: "text", show: "verdict", replay: "decided" },
  turn_cancel_requested: { level: "warn", shownBy: "text" },
  agent_killed: { level: "info", detailOfText: true, replay: "decided" },
  agent_exited: {
    level: (fields) => (fields.code === 0 ? "debug" : "info"),
    sync: "soon",
    detailOfText: true,
    replay: "turn-exit",
  },
  turn_end: { level: "info", sync: "soon", detailOfText: true, show: "turn-end" },
  agent_failure: { level: "error", shownBy: "session" },
  abnormal_exit: { level: "error", shownBy: "session" },
  retry: { level: "warn", shownBy: "text", show: "retry", replay: "decided" },
  wait_ended: { level: (fields) => (fields.cancelled ? "warn" : "info") },
  gave_up: { level: "info" },
  attempts_summary: { level: "info" },
};

/** The record each final verdict writes. */
export const VERDICT_RECORDS = {
  hang: "hang_detected",
  linger: "linger_detected",
  budget: "budget_exceeded",
} as const satisfies { [Kind in FinalVerdict]: RecordName };

/** The verdict a record announces, if it is a verdict record. */
export function verdictOf(message: string): FinalVerdict | undefined {
  for (const [verdict, name] of Object.entries(VERDICT_RECORDS)) {
    if (name === message) return verdict as FinalVerdict;
  }
  return undefined;
}

/** Records written by the session log and the supervisor themselves, not by this table. */
const FOREIGN_RECORDS: ReadonlySet<string> = new Set([
  ...SESSION_LOG_RECORDS,
  ...SUPERVISOR_RECORDS,
]);

/** Whether a message is known: one of the table's records or a foreign one. */
export function isKnownRecord(message: string): boolean {
  return Object.hasOwn(RECORDS, message) || FOREIGN_RECORDS.has(message);
}

/** The records whose spec matches `test`, by name. */
export function recordsWhere(test: (spec: RecordSpec) => boolean): RecordName[] {
  return (Object.keys(RECORDS) as RecordName[]).filter((name) => test(RECORDS[name] as RecordSpec));
}

/** Write a decision record with its table's level and fsync policy. */
export function writeRecord<Name extends RecordName>(
  log: Pick<SessionLog, "decision">,
  name: Name,
  fields: RecordFields[Name],
): void {
  const spec = RECORDS[name] as RecordSpec<Name>;
  const level = typeof spec.level === "function" ? spec.level(fields) : spec.level;
  log.decision(
    name,
    fields as Record<string, unknown>,
    level,
    spec.sync ? { sync: spec.sync } : undefined,
  );
}

/**
 * End a log whose run failed with `error` (a bug, a spawn that could not be recovered): the
 * `run_failed` record, then `session_end` as an error, flagged, exit code 1.
 */
export function closeLogAfterFailure(
  log: Pick<SessionLog, "decision" | "close">,
  error: unknown,
  durationMs: number,
): void {
  writeRecord(log, "run_failed", {
    err: error,
    summary: error instanceof Error ? error.message : String(error),
  });
  log.close({ outcome: "error", flagged: true, exit_code: 1, duration_ms: durationMs });
}

// Builds the run report from the session log's records, one at a time: while the run goes on
// (fed by the log's tap) or afterwards (fed by a finished log file). Records it does not know
// are ignored, so a newer log still reads.

import { PENDING_OUTCOMES, shellWord } from "@cursor-wrap/events";
import {
  count,
  type LogRecord,
  object,
  spawnModel,
  text,
  timeOf,
} from "@cursor-wrap/logger/record-fields";
import { clip, iso } from "./record-fields.js";
import {
  type AttemptReport,
  DEFAULT_REPORT_LIMITS,
  type FailureReport,
  type InterruptionReport,
  type ReportLimits,
  RUN_REPORT_SCHEMA_ID,
  RUN_REPORT_SCHEMA_VERSION,
  type RunReport,
  type TokenUsage,
  type ToolCallReport,
  type ToolKindReport,
  type VerdictReport,
} from "./run-report.js";

/** Outcomes of a tool call that mean the agent was refused it. */
export const DENIED_OUTCOMES: ReadonlySet<string> = new Set([
  "rejected",
  "permissionDenied",
  "readPermissionDenied",
  "writePermissionDenied",
]);

/** Outcomes that are neither a failure nor a refusal. */
const FINE_OUTCOMES: ReadonlySet<string> = new Set(["success", "none", ...PENDING_OUTCOMES]);

/** The verdict records and the verdict each announces. */
const VERDICTS = {
  hang_detected: "hang",
  linger_detected: "linger",
  budget_exceeded: "budget",
} as const;

/** Options for {@link createReportBuilder}. */
export interface ReportBuilderOptions {
  /** What writes the report. Default `{ name: "cursor-wrap", version: "unknown" }`. */
  tool?: { name: string; version: string };
  /** The command that resumes a session. Default `cursor-wrap --resume <id>`. */
  resumeCommand?: (sessionId: string) => string;
  /** How much of each list is kept. Default {@link DEFAULT_REPORT_LIMITS}. */
  limits?: Partial<ReportLimits>;
  /** Wall clock for `updated_at`, epoch ms. Default `Date.now`. */
  now?: () => number;
}

/** Builds a {@link RunReport} from records. */
export interface ReportBuilder {
  /** Take in one record of the session log (its name and fields as logged). */
  record(message: string, record: LogRecord): void;
  /**
   * The end of a run whose log was never closed (the process is exiting without it): the
   * report says `outcome` (default `interrupted`) and the exit code. Ignored once the log's
   * `session_end` was seen.
   */
  end(exitCode: number, outcome?: string): void;
  /** The report as it stands (`running` until `session_end` or {@link end}). */
  report(): RunReport;
  /** `session_end` (or {@link end}) was seen. */
  readonly finished: boolean;
}

interface OpenCall {
  callId: string;
  kind: string;
  label: string | undefined;
  turn: number;
  startedAt: number;
}

interface ClosedCall extends OpenCall {
  endedAt: number;
  outcome: string | undefined;
}

interface Attempt {
  turn: number;
  attempt: number;
  model: string | undefined;
  startedAt: number;
  endedAt: number | undefined;
  durationMs: number | undefined;
  outcome: string | undefined;
  toolCalls: number;
  usage: TokenUsage | undefined;
  sessionId: string | undefined;
  verdict: VerdictReport["verdict"] | undefined;
  killed: AttemptReport["killed"];
  failure: FailureReport | undefined;
  retry: AttemptReport["retry"];
}

/** Cursor's usage (`inputTokens`, …, camelCase) as the report's counts. */
function tokenUsage(usage: LogRecord | undefined): TokenUsage | undefined {
  if (!usage) return undefined;
  const counts = {
    input_tokens: count(usage, "inputTokens") ?? count(usage, "input_tokens"),
    output_tokens: count(usage, "outputTokens") ?? count(usage, "output_tokens"),
    cache_read_tokens: count(usage, "cacheReadTokens") ?? count(usage, "cache_read_tokens"),
    cache_write_tokens: count(usage, "cacheWriteTokens") ?? count(usage, "cache_write_tokens"),
  };
  if (Object.values(counts).every((value) => value === undefined)) return undefined;
  return {
    input_tokens: counts.input_tokens ?? 0,
    output_tokens: counts.output_tokens ?? 0,
    cache_read_tokens: counts.cache_read_tokens ?? 0,
    cache_write_tokens: counts.cache_write_tokens ?? 0,
  };
}

function addUsage(total: TokenUsage | undefined, usage: TokenUsage): TokenUsage {
  if (!total) return { ...usage };
  return {
    input_tokens: total.input_tokens + usage.input_tokens,
    output_tokens: total.output_tokens + usage.output_tokens,
    cache_read_tokens: total.cache_read_tokens + usage.cache_read_tokens,
    cache_write_tokens: total.cache_write_tokens + usage.cache_write_tokens,
  };
}

const defaultResume = (sessionId: string): string => `cursor-wrap --resume ${shellWord(sessionId)}`;

/**
 * Build the report of a run from its session log's records, fed one at a time in the order
 * they were written: by the log's tap (`openSessionLog({ onRecord })`) while the run goes on,
 * or from a finished log file (see {@link buildReport}).
 */
export function createReportBuilder(options: ReportBuilderOptions = {}): ReportBuilder {
  const limits: ReportLimits = { ...DEFAULT_REPORT_LIMITS, ...options.limits };
  const now = options.now ?? Date.now;
  const resumeCommand = options.resumeCommand ?? defaultResume;
  const line = (value: string): string => clip(value, limits.lineLength);

  let startedAt: number | undefined;
  let lastAt: number | undefined;
  let pid: number | undefined;
  let mode: RunReport["mode"] = null;
  let logPath: string | undefined;
  let sessionId: string | undefined;
  let agentBin: string | undefined;
  let agentVersion: string | undefined;
  let ending: LogRecord | undefined;
  let endedAt: number | undefined;
  let turn = 0;
  const attempts: Attempt[] = [];
  const verdicts: VerdictReport[] = [];
  const open = new Map<string, OpenCall>();
  const closed: ClosedCall[] = [];
  const stderrTail: string[] = [];
  // The agent said it does not know the session: it is no session to resume.
  let unknownSession = false;
  const interruptions: InterruptionReport[] = [];

  const current = (): Attempt | undefined => attempts.at(-1);
  const callKey = (callTurn: number, callId: string): string => `${callTurn}\u0000${callId}`;
  const interrupted = (kind: InterruptionReport["kind"], detail: string, at: number): void => {
    interruptions.push({ kind, detail: line(detail), at: iso(at) });
  };

  const failureOf = (record: LogRecord, kind: string): FailureReport => ({
    kind,
    summary: line(text(record, "summary") ?? kind),
    detail: text(record, "detail") === undefined ? null : line(text(record, "detail")!),
    gave_up: text(record, "gave_up") ?? null,
  });

  const builder: ReportBuilder = {
    get finished() {
      return ending !== undefined;
    },

    record(message, record) {
      const at = timeOf(record) ?? lastAt ?? now();
      lastAt = at;
      if (ending) return;
      switch (message) {
        case "session_start":
          startedAt ??= at;
          pid = count(record, "pid") ?? pid;
          logPath = text(record, "log_path") ?? logPath;
          return;
        case "log_renamed":
          logPath = text(record, "path") ?? logPath;
          sessionId = text(record, "session_id") ?? sessionId;
          return;
        case "options": {
          const value = text(record, "mode");
          if (value === "print" || value === "interactive") mode = value;
          return;
        }
        case "agent_spawn": {
          turn += 1;
          agentBin = text(record, "bin") ?? agentBin;
          agentVersion = text(record, "agent_version") ?? agentVersion;
          const previous = current();
          attempts.push({
            turn,
            // A turn after a retry is the next attempt at the same prompt.
            attempt: previous?.retry ? previous.attempt + 1 : 1,
            model: spawnModel(record),
            startedAt: at,
            endedAt: undefined,
            durationMs: undefined,
            outcome: undefined,
            toolCalls: 0,
            usage: undefined,
            sessionId: undefined,
            verdict: undefined,
            killed: null,
            failure: undefined,
            retry: null,
          });
          return;
        }
        case "agent_version_changed":
          agentVersion = text(record, "to") ?? agentVersion;
          return;
        case "tool_call_opened": {
          const callId = text(record, "call_id");
          if (callId === undefined) return;
          const attempt = current();
          if (attempt) attempt.toolCalls += 1;
          open.set(callKey(turn, callId), {
            callId,
            kind: text(record, "kind") ?? "unknown",
            label: text(record, "label"),
            turn,
            startedAt: at,
          });
          return;
        }
        case "tool_call_closed": {
          const callId = text(record, "call_id");
          const key = callKey(turn, callId ?? "");
          const call = open.get(key);
          if (!call) return;
          open.delete(key);
          closed.push({ ...call, endedAt: at, outcome: text(record, "outcome") });
          return;
        }
        case "hang_detected":
        case "linger_detected":
        case "budget_exceeded": {
          const verdict = VERDICTS[message];
          verdicts.push({
            verdict,
            turn,
            at: iso(at),
            summary: line(text(record, "summary") ?? verdict),
            reason: object(record, "reason") ? { ...object(record, "reason") } : null,
          });
          const attempt = current();
          if (attempt) attempt.verdict = verdict;
          return;
        }
        case "agent_killed": {
          const attempt = current();
          if (!attempt) return;
          const survivors = record.survivors;
          attempt.killed = {
            reason: line(text(record, "reason") ?? "killed"),
            duration_ms: count(record, "duration_ms") ?? null,
            survivors: Array.isArray(survivors) ? survivors.length : 0,
          };
          return;
        }
        case "turn_end": {
          const attempt = current();
          if (!attempt) return;
          attempt.endedAt = at;
          attempt.durationMs = count(record, "duration_ms");
          attempt.outcome = text(record, "outcome");
          attempt.toolCalls = count(record, "tool_calls") ?? attempt.toolCalls;
          attempt.attempt = count(record, "attempt") ?? attempt.attempt;
          // The model cursor-wrap chose, else the one asked for, else the one the agent named.
          attempt.model = text(record, "model") ?? attempt.model ?? text(record, "agent_model");
          attempt.usage = tokenUsage(object(record, "usage"));
          attempt.sessionId = text(record, "session_id");
          sessionId = attempt.sessionId ?? sessionId;
          // Calls still open when a turn ends never finished: they end with it.
          for (const [key, call] of open) {
            if (call.turn !== attempt.turn) continue;
            open.delete(key);
            closed.push({ ...call, endedAt: at, outcome: undefined });
          }
          return;
        }
        case "agent_failure": {
          if (text(record, "kind") === "unknown-session") unknownSession = true;
          const attempt = current();
          if (attempt) attempt.failure = failureOf(record, text(record, "kind") ?? "failure");
          return;
        }
        case "abnormal_exit": {
          const attempt = current();
          if (attempt) attempt.failure = failureOf(record, "abnormal_exit");
          return;
        }
        case "gave_up": {
          // A hang or a budget the run did not recover from: its verdict, and why.
          const attempt = current();
          if (attempt) attempt.failure = failureOf(record, text(record, "kind") ?? "hang");
          return;
        }
        case "retry": {
          const attempt = current();
          if (!attempt) return;
          // The failure it recovered from: a run that gives up records its last one itself
          // (`agent_failure`), a recovered attempt only here.
          // Its summary is what the retry decided: the failure's own words are its detail.
          const kind = text(record, "kind");
          if (kind !== undefined && !attempt.failure) {
            const failure = failureOf(record, kind);
            attempt.failure = { ...failure, summary: failure.detail ?? failure.summary };
          }
          attempt.retry = {
            action: text(record, "action") ?? null,
            kind: text(record, "kind") ?? null,
            wait_ms: count(record, "wait_ms") ?? null,
            model: text(record, "model") ?? null,
            summary: line(text(record, "summary") ?? "retried"),
          };
          return;
        }
        case "agent_stderr": {
          const raw = text(record, "raw_text");
          if (raw === undefined) return;
          stderrTail.push(line(raw));
          if (stderrTail.length > limits.stderrLines) stderrTail.shift();
          return;
        }
        case "signal_received":
          interrupted("signal", text(record, "signal") ?? "signal", at);
          return;
        case "stdout_closed":
          interrupted("stdout", text(record, "summary") ?? text(record, "code") ?? "stdout", at);
          return;
        case "run_failed":
          interrupted("error", text(record, "summary") ?? "error", at);
          return;
        case "wrapper_crashed": {
          const error = object(record, "err");
          interrupted("crash", text(error, "message") ?? text(error, "type") ?? "crash", at);
          return;
        }
        case "session_end":
          ending = record;
          endedAt = at;
          sessionId = text(record, "session_id") ?? sessionId;
          agentVersion = text(record, "agent_version") ?? agentVersion;
          logPath = text(record, "log_path") ?? logPath;
          return;
        default:
          return;
      }
    },

    end(exitCode, outcome = "interrupted") {
      if (ending) return;
      endedAt = now();
      ending = { outcome, exit_code: exitCode, flagged: exitCode !== 0 };
    },

    report() {
      const reportAt = endedAt ?? lastAt ?? now();
      const toolCalls = [
        ...closed.map((call) => ({
          call,
          endedAt: call.endedAt,
          finished: call.outcome !== undefined,
        })),
        ...[...open.values()].map((call) => ({ call, endedAt: reportAt, finished: false })),
      ].map(
        ({ call, endedAt: end, finished }): ToolCallReport => ({
          call_id: call.callId,
          kind: call.kind,
          label: call.label === undefined ? null : line(call.label),
          turn: call.turn,
          started_at: iso(call.startedAt),
          duration_ms: Math.max(0, end - call.startedAt),
          finished,
          outcome: finished ? ((call as ClosedCall).outcome ?? null) : null,
        }),
      );
      const kinds = new Map<string, ToolKindReport>();
      let failed = 0;
      let denied = 0;
      let unfinished = 0;
      for (const call of toolCalls) {
        let kind = kinds.get(call.kind);
        if (!kind) {
          kind = {
            kind: call.kind,
            count: 0,
            failed: 0,
            denied: 0,
            unfinished: 0,
            total_ms: 0,
            max_ms: 0,
          };
          kinds.set(call.kind, kind);
        }
        kind.count += 1;
        kind.total_ms += call.duration_ms;
        kind.max_ms = Math.max(kind.max_ms, call.duration_ms);
        if (!call.finished) {
          kind.unfinished += 1;
          unfinished += 1;
        } else if (call.outcome !== null && DENIED_OUTCOMES.has(call.outcome)) {
          kind.denied += 1;
          denied += 1;
        } else if (call.outcome !== null && !FINE_OUTCOMES.has(call.outcome)) {
          kind.failed += 1;
          failed += 1;
        }
      }
      const byStart = (a: ToolCallReport, b: ToolCallReport): number =>
        a.started_at < b.started_at ? -1 : a.started_at > b.started_at ? 1 : 0;

      let usage: TokenUsage | undefined;
      for (const attempt of attempts) if (attempt.usage) usage = addUsage(usage, attempt.usage);
      const models: string[] = [];
      for (const attempt of attempts) {
        const model = attempt.model ?? "default";
        if (!models.includes(model)) models.push(model);
      }
      const attemptReports = attempts.map(
        (attempt): AttemptReport => ({
          turn: attempt.turn,
          attempt: attempt.attempt,
          model: attempt.model ?? null,
          started_at: iso(attempt.startedAt),
          ended_at: attempt.endedAt === undefined ? null : iso(attempt.endedAt),
          duration_ms:
            attempt.durationMs ??
            (attempt.endedAt === undefined ? null : attempt.endedAt - attempt.startedAt),
          outcome: attempt.outcome ?? (ending ? "unfinished" : "running"),
          tool_calls: attempt.toolCalls,
          usage: attempt.usage ?? null,
          session_id: attempt.sessionId ?? null,
          verdict: attempt.verdict ?? null,
          killed: attempt.killed,
          failure: attempt.failure ?? null,
          retry: attempt.retry,
        }),
      );
      const exitCode = ending ? (count(ending, "exit_code") ?? null) : null;
      return {
        $schema: RUN_REPORT_SCHEMA_ID,
        schema_version: RUN_REPORT_SCHEMA_VERSION,
        tool: options.tool ?? { name: "cursor-wrap", version: "unknown" },
        outcome: ending ? (text(ending, "outcome") ?? "unknown") : "running",
        finished: ending !== undefined,
        exit_code: exitCode,
        flagged: ending
          ? ending.flagged === true
          : verdicts.some((verdict) => verdict.verdict !== "linger"),
        started_at: startedAt === undefined ? null : iso(startedAt),
        ended_at: endedAt === undefined ? null : iso(endedAt),
        updated_at: iso(now()),
        duration_ms: ending
          ? (count(ending, "duration_ms") ??
            (startedAt === undefined || endedAt === undefined ? null : endedAt - startedAt))
          : null,
        pid: pid ?? null,
        mode,
        session_id: sessionId ?? null,
        // None for a session the agent said it does not know: resuming it cannot work.
        resume_command: sessionId === undefined || unknownSession ? null : resumeCommand(sessionId),
        log_path: logPath ?? null,
        agent: { bin: agentBin ?? null, version: agentVersion ?? null },
        models,
        turns: ending ? (count(ending, "turns") ?? attempts.length) : attempts.length,
        attempts: attemptReports,
        verdicts: [...verdicts],
        tool_calls: {
          total: toolCalls.length,
          failed,
          denied,
          unfinished,
          by_kind: [...kinds.values()].sort((a, b) => b.count - a.count || b.total_ms - a.total_ms),
          slowest: [...toolCalls]
            .sort((a, b) => b.duration_ms - a.duration_ms || byStart(a, b))
            .slice(0, limits.slowestToolCalls),
          denied_calls: toolCalls
            .filter((call) => call.outcome !== null && DENIED_OUTCOMES.has(call.outcome))
            .sort(byStart)
            .slice(0, limits.deniedCalls),
        },
        usage: usage ?? null,
        stderr_tail: [...stderrTail],
        failure:
          exitCode !== null && exitCode !== 0
            ? runFailure(attemptReports, verdicts, interruptions)
            : null,
        interruptions: [...interruptions],
      };
    },
  };
  return builder;
}

/** What a run that did not complete failed on: its last attempt's failure or verdict, or what stopped it. */
function runFailure(
  attempts: readonly AttemptReport[],
  verdicts: readonly VerdictReport[],
  interruptions: readonly InterruptionReport[],
): FailureReport | null {
  const last = attempts.at(-1);
  if (last?.failure) return last.failure;
  const interruption = interruptions.at(-1);
  if (interruption) {
    return { kind: interruption.kind, summary: interruption.detail, detail: null, gave_up: null };
  }
  const verdict = last?.verdict
    ? verdicts.filter((item) => item.verdict === last.verdict).at(-1)
    : undefined;
  if (verdict)
    return { kind: verdict.verdict, summary: verdict.summary, detail: null, gave_up: null };
  return null;
}

/**
 * The report of a finished (or cut short) log: its records, in order, as parsed, e.g. the
 * `record` entries of `readSessionLog(path)` from `@cursor-wrap/logger`.
 */
export function buildReport(
  records: Iterable<LogRecord>,
  options: ReportBuilderOptions = {},
): RunReport {
  const builder = createReportBuilder(options);
  for (const record of records) builder.record(String(record.msg), record);
  return builder.report();
}

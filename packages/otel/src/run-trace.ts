// The trace of one run, built from its session log's records as they are written: an
// invoke_agent span for the run, a span per attempt (each start of the agent), an execute_tool
// span per tool call, verdicts, retries and failures as span events. Exported over OTLP/HTTP.

import {
  count,
  type LogRecord,
  object,
  spawnModel,
  text,
  timeOf,
} from "@cursor-wrap/logger/record-fields";
import {
  type Attributes,
  type Context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import {
  type ExportResult,
  ExportResultCode,
  W3CTraceContextPropagator,
} from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from "@opentelemetry/sdk-trace-base";
import {
  CURSOR_WRAP,
  ERROR_TIMEOUT,
  GENAI,
  GENAI_SEMCONV_VERSION,
  OPERATION,
  PROVIDER_CURSOR,
} from "./genai-attributes.js";
import { type Usage, usageOf } from "./record-fields.js";
import { tracesEndpoint } from "./traces-requested.js";

/** Options for {@link createRunTrace}. */
export interface RunTraceOptions {
  /**
   * The environment: `TRACEPARENT`/`TRACESTATE` (the caller's trace, which the run joins),
   * `OTEL_SERVICE_NAME`, and the OTLP endpoint variables. Default `process.env`.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where to POST the spans (OTLP/HTTP, JSON). Default: from `env` (see `tracesEndpoint`). */
  endpoint?: string;
  /** What runs the agent. Default `{ name: "cursor-wrap", version: "unknown" }`. */
  tool?: { name: string; version: string };
  /** The agent's name for `gen_ai.agent.name`. Default `cursor-agent`. */
  agentName?: string;
  /** How long one export may take, ms. Default 5 s. */
  exportTimeoutMs?: number;
  /** Told of each export that failed (the spans are dropped, the run goes on). */
  onExportError?(error: Error): void;
  /** Wall clock, epoch ms, for what has no record time. Default `Date.now`. */
  now?: () => number;
  /** Send spans here instead of over OTLP/HTTP (tests, other transports). */
  exporter?: SpanExporter;
}

/** The trace of a run, fed the session log's records. */
export interface RunTrace {
  /** Take in one record of the session log (its name and fields as logged). */
  record(message: string, record: LogRecord): void;
  /**
   * The W3C `traceparent` (and `tracestate`, when the caller gave one) to hand to the agent:
   * the current attempt's span, else the run's.
   */
  agentEnv(): Record<string, string>;
  /** The run's trace id (32 hex digits). */
  readonly traceId: string;
  /**
   * End whatever is still open (a run whose log never closed: the process is exiting without
   * it), marking the run as `outcome` with `exitCode`. Ignored once `session_end` was seen.
   */
  end(exitCode: number, outcome?: string): void;
  /** Export what is left and stop; resolves within about the export timeout, never rejects. */
  shutdown(): Promise<void>;
}

/** A span exporter that says when an export failed, instead of leaving it to `diag`. */
function reportingFailures(exporter: SpanExporter, onError: (error: Error) => void): SpanExporter {
  return {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void) {
      exporter.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) {
          onError(result.error ?? new Error("the OTLP export failed"));
        }
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    ...(exporter.forceFlush ? { forceFlush: () => exporter.forceFlush!() } : {}),
  };
}

/** `error.type` of a run's outcome: `timeout` for a hang, else the outcome's first word. */
function errorTypeOf(outcome: string): string {
  if (outcome === "hang") return ERROR_TIMEOUT;
  return outcome.split(/\s/, 1)[0] || "_OTHER";
}

function usageAttributes(usage: Usage): Attributes {
  return {
    [GENAI.inputTokens]: usage.input,
    [GENAI.outputTokens]: usage.output,
    [GENAI.cacheReadTokens]: usage.cacheRead,
    [GENAI.cacheCreationTokens]: usage.cacheWrite,
  };
}

function addUsage(total: Usage | undefined, usage: Usage): Usage {
  if (!total) return { ...usage };
  return {
    input: total.input + usage.input,
    output: total.output + usage.output,
    cacheRead: total.cacheRead + usage.cacheRead,
    cacheWrite: total.cacheWrite + usage.cacheWrite,
  };
}

/** Outcomes of a tool call that are neither failures nor refusals. */
const FINE_TOOL_OUTCOMES = new Set(["success", "none"]);

/** The verdict records and the verdict each announces. */
const VERDICTS: Readonly<Record<string, string>> = {
  hang_detected: "hang",
  linger_detected: "linger",
  budget_exceeded: "budget",
};

interface Attempt {
  span: Span;
  context: Context;
  verdict: string | undefined;
  killed: boolean;
  /** Its status says why it failed already (a kill, or the failure the run gave up on). */
  failed: boolean;
}

/** Outcomes of an attempt that are no failure of it. */
const ATTEMPT_OK: ReadonlySet<string> = new Set(["completed", "cancelled"]);

/**
 * Records that come after a failed attempt's `turn_end` and are about it: its span stays open
 * through them (the retry that names its failure, or the failure the run gives up on).
 */
const ABOUT_THE_LAST_ATTEMPT: ReadonlySet<string> = new Set([
  "retry",
  "agent_failure",
  "abnormal_exit",
  "gave_up",
  "attempts_summary",
]);

/** One line of at most `max` characters (attribute values end up in dashboards). */
function clip(value: string, max = 500): string {
  return value.length <= max ? value : `${value.slice(0, max - 1)}…`;
}

/**
 * Start the trace of one run. The run's `invoke_agent` span starts now, as a child of the
 * caller's trace when `TRACEPARENT` says there is one.
 */
export function createRunTrace(options: RunTraceOptions = {}): RunTrace {
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now;
  const tool = options.tool ?? { name: "cursor-wrap", version: "unknown" };
  const agentName = options.agentName ?? "cursor-agent";
  const timeoutMs = options.exportTimeoutMs ?? 5_000;
  const onError = options.onExportError ?? (() => {});
  const exporter =
    options.exporter ??
    new OTLPTraceExporter({
      url: options.endpoint ?? tracesEndpoint(env),
      timeoutMillis: timeoutMs,
    });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      "service.name": env.OTEL_SERVICE_NAME?.trim() || tool.name,
      "service.version": tool.version,
    }),
    spanProcessors: [
      new BatchSpanProcessor(reportingFailures(exporter, onError), {
        // Longer than the exporter's own: its timeout, not the processor's, ends an export that
        // gets no answer, and only the exporter's is reported (the processor's goes to `diag`).
        exportTimeoutMillis: timeoutMs + 500,
      }),
    ],
  });
  const tracer = provider.getTracer(tool.name, tool.version, {
    schemaUrl: `https://opentelemetry.io/schemas/${GENAI_SEMCONV_VERSION}`,
  });
  const propagator = new W3CTraceContextPropagator();
  const caller = propagator.extract(
    ROOT_CONTEXT,
    { traceparent: env.TRACEPARENT, tracestate: env.TRACESTATE },
    defaultTextMapGetter,
  );

  const run = tracer.startSpan(
    `${OPERATION.invokeAgent} ${agentName}`,
    {
      kind: SpanKind.CLIENT,
      startTime: new Date(now()),
      attributes: {
        [GENAI.operationName]: OPERATION.invokeAgent,
        [GENAI.providerName]: PROVIDER_CURSOR,
        [GENAI.agentName]: agentName,
      },
    },
    caller,
  );
  const runContext = trace.setSpan(caller, run);
  let attempt: Attempt | undefined;
  let attempts = 0;
  let requestModel: string | undefined;
  let total: Usage | undefined;
  let ended = false;
  let lastAt = now();
  const tools = new Map<string, { span: Span; ended: boolean }>();

  const endTools = (at: Date, errorType: string): void => {
    for (const [key, call] of tools) {
      tools.delete(key);
      call.span.setAttribute(GENAI.errorType, errorType);
      call.span.setStatus({ code: SpanStatusCode.ERROR, message: "the tool call never finished" });
      call.span.end(at);
    }
  };

  /**
   * An attempt whose turn has ended, its span held open until the next record: a `retry`
   * right after it names the failure it recovers from (only the last failure of a run has a
   * record of its own).
   */
  let ending: { attempt: Attempt; at: Date } | undefined;
  const endHeld = (): void => {
    if (!ending) return;
    const { attempt: held, at } = ending;
    ending = undefined;
    held.span.end(at);
  };

  /**
   * What an attempt failed on: a `failure` event and, unless a kill said why already, its
   * status and `error.type`.
   */
  const markFailed = (failed: Attempt, kind: string, summary: string, at: Date): void => {
    failed.span.addEvent(
      "failure",
      { [CURSOR_WRAP.failureKind]: kind, [CURSOR_WRAP.summary]: clip(summary) },
      at,
    );
    if (failed.killed) return;
    failed.failed = true;
    failed.span.setAttribute(GENAI.errorType, kind);
    failed.span.setStatus({ code: SpanStatusCode.ERROR, message: kind });
  };

  const endAttempt = (at: Date, fields: LogRecord | undefined): void => {
    const current = attempt;
    if (!current) return;
    attempt = undefined;
    endTools(at, current.verdict === "hang" ? ERROR_TIMEOUT : "unfinished");
    if (fields) {
      const outcome = text(fields, "outcome");
      if (outcome !== undefined) current.span.setAttribute(CURSOR_WRAP.outcome, outcome);
      // A turn that did not complete failed, retried or not.
      if (outcome !== undefined && !ATTEMPT_OK.has(outcome) && !current.failed) {
        current.failed = true;
        current.span.setAttribute(GENAI.errorType, errorTypeOf(outcome));
        current.span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
      }
      // The model the agent said it answers with, else the one cursor-wrap chose for it.
      const model = text(fields, "agent_model") ?? text(fields, "model");
      if (model !== undefined) current.span.setAttribute(GENAI.responseModel, model);
      const sessionId = text(fields, "session_id");
      if (sessionId !== undefined) {
        current.span.setAttribute(GENAI.conversationId, sessionId);
        run.setAttribute(GENAI.conversationId, sessionId);
      }
      const usage = usageOf(object(fields, "usage"));
      if (usage) {
        current.span.setAttributes(usageAttributes(usage));
        total = addUsage(total, usage);
      }
    }
    endHeld();
    // Only a failed attempt has records after its end (a retry, the failure given up on): a
    // completed one ends now (an interactive session's next prompt may be minutes away).
    if (current.failed) ending = { attempt: current, at };
    else current.span.end(at);
  };

  const finish = (at: Date, exitCode: number, outcome: string, fields?: LogRecord): void => {
    if (ended) return;
    ended = true;
    endAttempt(at, undefined);
    endHeld();
    run.setAttribute(CURSOR_WRAP.outcome, outcome);
    run.setAttribute(CURSOR_WRAP.exitCode, exitCode);
    if (total) run.setAttributes(usageAttributes(total));
    const sessionId = fields ? text(fields, "session_id") : undefined;
    if (sessionId !== undefined) run.setAttribute(GENAI.conversationId, sessionId);
    const logPath = fields ? text(fields, "log_path") : undefined;
    if (logPath !== undefined) run.setAttribute(CURSOR_WRAP.logPath, logPath);
    if (exitCode !== 0) {
      run.setAttribute(GENAI.errorType, errorTypeOf(outcome));
      run.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
    }
    run.end(at);
  };

  return {
    traceId: run.spanContext().traceId,

    record(message, record) {
      if (ended) return;
      const atMs = timeOf(record) ?? lastAt;
      lastAt = atMs;
      const at = new Date(atMs);
      if (!ABOUT_THE_LAST_ATTEMPT.has(message)) endHeld();
      switch (message) {
        case "agent_spawn": {
          endAttempt(at, undefined);
          attempts += 1;
          // The model cursor-wrap chose (a fallback), else the user's own `-m`.
          const model = spawnModel(record);
          requestModel ??= model;
          if (model !== undefined && requestModel === model) {
            run.setAttribute(GENAI.requestModel, model);
          }
          const version = text(record, "agent_version");
          if (version !== undefined) run.setAttribute(GENAI.agentVersion, version);
          const span = tracer.startSpan(
            "attempt",
            {
              kind: SpanKind.INTERNAL,
              startTime: at,
              attributes: {
                [CURSOR_WRAP.turn]: attempts,
                ...(model === undefined ? {} : { [GENAI.requestModel]: model }),
                ...(text(record, "resume") === undefined
                  ? {}
                  : { [GENAI.conversationId]: text(record, "resume")! }),
              },
            },
            runContext,
          );
          attempt = {
            span,
            context: trace.setSpan(runContext, span),
            verdict: undefined,
            killed: false,
            failed: false,
          };
          return;
        }
        case "agent_started": {
          const pid = count(record, "pid");
          if (pid !== undefined) attempt?.span.setAttribute(CURSOR_WRAP.pid, pid);
          return;
        }
        case "tool_call_opened": {
          const callId = text(record, "call_id");
          if (callId === undefined) return;
          const kind = text(record, "kind") ?? "unknown";
          const label = text(record, "label");
          const span = tracer.startSpan(
            `${OPERATION.executeTool} ${kind}`,
            {
              kind: SpanKind.INTERNAL,
              startTime: at,
              attributes: {
                [GENAI.operationName]: OPERATION.executeTool,
                [GENAI.toolName]: kind,
                [GENAI.toolCallId]: callId,
                [GENAI.toolType]: "function",
                ...(label === undefined ? {} : { [CURSOR_WRAP.toolLabel]: clip(label) }),
              },
            },
            attempt?.context ?? runContext,
          );
          tools.get(callId)?.span.end(at);
          tools.set(callId, { span, ended: false });
          return;
        }
        case "tool_call_closed": {
          const callId = text(record, "call_id");
          const call = callId === undefined ? undefined : tools.get(callId);
          if (!call || callId === undefined) return;
          tools.delete(callId);
          const outcome = text(record, "outcome");
          if (outcome !== undefined) {
            call.span.setAttribute(CURSOR_WRAP.toolOutcome, outcome);
            if (!FINE_TOOL_OUTCOMES.has(outcome)) {
              call.span.setAttribute(GENAI.errorType, outcome);
              call.span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
            }
          }
          call.span.end(at);
          return;
        }
        case "hang_detected":
        case "linger_detected":
        case "budget_exceeded": {
          const verdict = VERDICTS[message]!;
          const reason = object(record, "reason");
          const attributes: Attributes = {
            [CURSOR_WRAP.verdict]: verdict,
            [CURSOR_WRAP.summary]: clip(text(record, "summary") ?? verdict),
            ...(reason ? { [CURSOR_WRAP.reason]: clip(JSON.stringify(reason), 2_000) } : {}),
          };
          (attempt?.span ?? run).addEvent(verdict, attributes, at);
          if (attempt) attempt.verdict = verdict;
          return;
        }
        case "agent_killed": {
          if (!attempt) return;
          attempt.killed = true;
          attempt.failed = true;
          const reason = text(record, "reason") ?? "killed";
          attempt.span.setAttribute(CURSOR_WRAP.killReason, clip(reason));
          attempt.span.setAttribute(
            GENAI.errorType,
            attempt.verdict === "hang" ? ERROR_TIMEOUT : (attempt.verdict ?? "killed"),
          );
          attempt.span.setStatus({ code: SpanStatusCode.ERROR, message: clip(reason) });
          attempt.span.addEvent("killed", { [CURSOR_WRAP.killReason]: clip(reason) }, at);
          return;
        }
        case "agent_failure":
        case "abnormal_exit": {
          // Written after the attempt's turn_end: the attempt held open, else a running one.
          const failed = ending?.attempt ?? attempt;
          if (!failed) return;
          const kind =
            message === "abnormal_exit" ? "abnormal_exit" : (text(record, "kind") ?? "failure");
          markFailed(
            failed,
            kind,
            text(record, "summary") ?? kind,
            failed === ending?.attempt ? ending.at : at,
          );
          return;
        }
        case "gave_up": {
          // A hang or a budget the run did not recover from: why, on the attempt it ended.
          const failed = ending?.attempt ?? attempt;
          if (!failed) return;
          failed.span.addEvent(
            "gave_up",
            { [CURSOR_WRAP.summary]: clip(text(record, "gave_up") ?? "gave up") },
            failed === ending?.attempt ? ending.at : at,
          );
          return;
        }
        case "retry": {
          // The failure the attempt that just ended is retried after, on its span (a kill, a
          // hang's, tells its own story already).
          const failureKind = text(record, "kind");
          if (ending && failureKind !== undefined && !ending.attempt.killed) {
            const summary = text(record, "detail") ?? text(record, "summary") ?? failureKind;
            markFailed(ending.attempt, failureKind, summary, ending.at);
          }
          endHeld();
          const attributes: Attributes = {
            [CURSOR_WRAP.summary]: clip(text(record, "summary") ?? "retry"),
          };
          const action = text(record, "action");
          if (action !== undefined) attributes[CURSOR_WRAP.retryAction] = action;
          const kind = text(record, "kind");
          if (kind !== undefined) attributes[CURSOR_WRAP.retryKind] = kind;
          const waitMs = count(record, "wait_ms");
          if (waitMs !== undefined) attributes[CURSOR_WRAP.retryWaitMs] = waitMs;
          (attempt?.span ?? run).addEvent("retry", attributes, at);
          return;
        }
        case "turn_end": {
          const current = attempt;
          if (current) {
            const number = count(record, "attempt");
            if (number !== undefined) current.span.setAttribute(CURSOR_WRAP.attempt, number);
          }
          endAttempt(at, record);
          return;
        }
        case "log_renamed": {
          const sessionId = text(record, "session_id");
          if (sessionId !== undefined) run.setAttribute(GENAI.conversationId, sessionId);
          return;
        }
        case "session_end":
          finish(at, count(record, "exit_code") ?? 1, text(record, "outcome") ?? "unknown", record);
          return;
        default:
          return;
      }
    },

    agentEnv() {
      const carrier: Record<string, string> = {};
      const span = attempt?.span ?? run;
      propagator.inject(trace.setSpan(caller, span), carrier, defaultTextMapSetter);
      const result: Record<string, string> = {};
      if (carrier.traceparent !== undefined) result.TRACEPARENT = carrier.traceparent;
      if (carrier.tracestate !== undefined) result.TRACESTATE = carrier.tracestate;
      return result;
    },

    end(exitCode, outcome = "interrupted") {
      finish(new Date(now()), exitCode, outcome);
    },

    async shutdown() {
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs + 1_000);
        timer.unref();
      });
      try {
        await Promise.race([provider.shutdown().catch(() => {}), limit]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

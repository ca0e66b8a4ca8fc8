import {
  type AgentEvent,
  createLineFramer,
  eventTypeOf,
  instant,
  resultInfo,
  toMonitorSignal,
  type Usage,
} from "@cursor-wrap/events";
import type { Formatter } from "@cursor-wrap/format";
import type { SessionLog } from "@cursor-wrap/logger";
import { createMonitor, type Reason, type Verdict } from "@cursor-wrap/monitor";
import { type AgentProcess, buildArgs, type ExitInfo, start } from "@cursor-wrap/supervisor";
import { type AgentFailure, classifyFailureLine } from "./failures.js";
import { createGarbageNudge } from "./garbage.js";
import { monitorOptions, type RunOptions } from "./options.js";

/** How a turn ended. */
export type TurnOutcome = "completed" | "hang" | "linger" | "budget" | "abnormal" | "cancelled";

/** Everything a turn needs that outlives it. */
export interface TurnContext {
  options: RunOptions;
  log: SessionLog;
  formatter: Formatter;
  /** The wrapper's stdout: watched for backpressure. */
  stdout: NodeJS.WritableStream & { writableNeedDrain?: boolean };
  /** The wrapper's stderr: agent stderr lines are shown here (per `--stderr`). */
  stderr: NodeJS.WritableStream;
  /** Told about the running agent (and `undefined` when it is gone), for last-resort kills. */
  onAgent?: (agent: AgentProcess | undefined) => void;
  /** Monotonic clock, ms. */
  now?: () => number;
}

/** One turn: a prompt for one agent process. */
export interface TurnRequest {
  prompt: string;
  resume: string | undefined;
  /** Aborting cancels the turn: the agent's tree is killed. */
  signal: AbortSignal;
}

/** What happened in a turn. */
export interface TurnResult {
  outcome: TurnOutcome;
  sessionId: string | undefined;
  exit: ExitInfo | undefined;
  /** Why a hang, linger or budget verdict fired. */
  reason: Reason | undefined;
  /** A failure the agent reported (auth, plan, quota, unknown session, error event). */
  failure: AgentFailure | undefined;
  /** The result event said `is_error`. */
  resultIsError: boolean;
  durationMs: number;
  toolCalls: number;
  usage: Usage | undefined;
  /** The last non-JSON stderr line, to explain an abnormal exit. */
  lastStderr: string | undefined;
}

const VERDICT_RECORDS: Record<
  Exclude<Verdict, "ok" | "waiting">,
  { message: string; level: "error" | "warn" }
> = {
  hang: { message: "hang_detected", level: "error" },
  linger: { message: "linger_detected", level: "warn" },
  budget: { message: "budget_exceeded", level: "error" },
};

function redactArgs(args: readonly string[]): string[] {
  return args.map((arg, index) => (args[index - 1] === "--api-key" ? "[REDACTED]" : arg));
}

/** Frees forwarded output buffers as the bytes go by (one per process, across turns). */
const nudgeGarbage = createGarbageNudge();

/**
 * Run one turn (ARCHITECTURE "one turn, as data"): start the agent, and for every line of its
 * stdout: parse once, log it, forward it, feed the monitor, and keep one timer armed at the
 * monitor's next deadline. A verdict kills the agent's tree; so does a cancel.
 */
export async function runTurn(context: TurnContext, request: TurnRequest): Promise<TurnResult> {
  const { options, log, formatter } = context;
  const now = context.now ?? (() => performance.now());
  const args = buildArgs({
    resume: request.resume,
    force: options.force,
    model: options.model,
    workspace: options.workspace,
    passthrough: options.passthrough,
  });
  log.decision(
    "agent_spawn",
    {
      bin: options.agentBin,
      args: redactArgs(args),
      resume: request.resume,
      pty: options.pty,
      cwd: process.cwd(),
      prompt_chars: request.prompt.length,
    },
    "debug",
  );
  const startedAt = now();
  const agent = await start({
    bin: options.agentBin,
    args,
    prompt: request.prompt,
    pty: options.pty ? ptySize(context.stdout) : false,
    killGraceMs: options.killGraceMs,
    drainGraceMs: options.drainGraceMs,
    logger: log,
  });
  context.onAgent?.(agent);
  log.decision("agent_started", { pid: agent.pid }, "debug");

  const monitor = createMonitor({ ...monitorOptions(options), startedAt, now });
  const framer = createLineFramer({ parseCap: options.parseCap });
  let sessionId: string | undefined;
  let failure: AgentFailure | undefined;
  let resultReceived = false;
  let resultIsError = false;
  let usage: Usage | undefined;
  let toolCalls = 0;
  let lastStderr: string | undefined;
  let verdict: { verdict: Exclude<Verdict, "ok" | "waiting">; reason: Reason } | undefined;
  let killing: Promise<unknown> | undefined;
  let paused = false;

  const kill = (reason: string): Promise<unknown> => {
    killing ??= agent.kill(reason).then((report) => {
      log.decision("agent_killed", {
        reason,
        code: report.code,
        signal: report.signal,
        steps: report.steps,
        survivors: report.survivors,
        duration_ms: report.durationMs,
      });
    });
    return killing;
  };

  // One timer, armed at the monitor's next deadline. Ordinary lines only push the deadline a
  // little later, so for them the timer is re-armed only when the deadline moves earlier or
  // when it fires (no timer churn per line). A tool call starting can push it minutes later:
  // then it is re-armed exactly, so a long tool call sleeps until its own deadline.
  let timer: ReturnType<typeof setTimeout> | undefined;
  let armedFor = Number.POSITIVE_INFINITY;
  let rearmExactly = false;
  const disarm = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    armedFor = Number.POSITIVE_INFINITY;
  };
  const rearm = (): void => {
    const exactly = rearmExactly;
    rearmExactly = false;
    if (verdict || paused) return;
    const deadline = monitor.nextDeadline();
    if (deadline === undefined) {
      disarm();
      return;
    }
    if (timer && (exactly ? deadline === armedFor : deadline >= armedFor)) return;
    disarm();
    armedFor = deadline;
    timer = setTimeout(onDeadline, Math.max(0, Math.ceil(deadline - now())));
  };
  const onDeadline = (): void => {
    timer = undefined;
    armedFor = Number.POSITIVE_INFINITY;
    const check = monitor.check(now());
    if (check.warning) {
      log.decision(
        "stall_warning",
        {
          kind: check.warning.kind,
          fires_in_ms: check.warning.firesInMs,
          summary: check.warning.message,
        },
        "info",
      );
      formatter.notice(check.warning.message);
    }
    if (check.verdict === "ok" || check.verdict === "waiting") {
      rearm();
      return;
    }
    verdict = { verdict: check.verdict, reason: check.reason };
    const record = VERDICT_RECORDS[check.verdict];
    log.decision(
      record.message,
      { verdict: check.verdict, reason: check.reason, summary: check.reason.message },
      record.level,
    );
    void kill(check.reason.message);
  };

  const handle = (event: AgentEvent): void => {
    formatter.write(event);
    const signal = toMonitorSignal(event);
    const warning = monitor.observe(signal, event.recvAt.mono);
    if (warning)
      log.decision(
        "monitor_warning",
        { code: warning.code, call_id: warning.id, summary: warning.message },
        "warn",
        { sync: "soon" },
      );
    switch (signal.type) {
      case "session":
        if (sessionId === undefined) {
          sessionId = signal.sessionId;
          log.setSessionId(signal.sessionId);
        }
        break;
      case "toolStart":
        toolCalls += 1;
        rearmExactly = true;
        log.decision(
          "tool_call_opened",
          {
            call_id: signal.id,
            kind: signal.kind,
            label: signal.label,
            timeout_ms: signal.timeoutMs,
            background: signal.background,
          },
          "debug",
          { sync: "soon" },
        );
        break;
      case "toolEnd":
        log.decision("tool_call_closed", { call_id: signal.id }, "debug", { sync: "soon" });
        break;
      case "done": {
        const result = resultInfo(event);
        resultReceived = true;
        resultIsError = result?.isError === true;
        usage = result?.usage;
        log.decision(
          "result_received",
          { is_error: resultIsError, duration_ms: result?.durationMs, usage },
          "debug",
        );
        break;
      }
      default:
        break;
    }
    if (event.kind === "text")
      failure ??= classifyFailureLine(event.text, request.resume !== undefined);
    else if (event.kind === "json" && event.type === "error") {
      const message = event.data.message ?? event.data.error;
      failure ??= classifyFailureLine(String(message), request.resume !== undefined) ?? {
        kind: "agent-error",
        detail: typeof message === "string" ? message : eventTypeOf(event),
      };
    }
  };

  // The raw records of a chunk are written (one write(2)) before any of its lines is forwarded.
  const handleAll = (events: AgentEvent[]): void => {
    log.rawAll(events);
    for (const event of events) handle(event);
    formatter.flush();
  };

  const onStdout = (chunk: Buffer): void => {
    handleAll(framer.push(chunk, instant()));
    nudgeGarbage(chunk.length);
    rearm();
    // A slow reader of our stdout blocks the agent, as it would without the wrapper; that
    // time is not the agent's silence, so the monitor is paused meanwhile.
    if (context.stdout.writableNeedDrain && !paused) {
      paused = true;
      disarm();
      agent.stdout.pause();
      context.stdout.once("drain", () => {
        paused = false;
        monitor.observe({ type: "activity", eventType: "stdout-drained" }, now());
        agent.stdout.resume();
        rearm();
      });
    }
  };
  agent.stdout.on("data", onStdout);

  const stderrFramer = createLineFramer({ parseCap: 64 * 1024 });
  const onStderrLine = (event: AgentEvent): void => {
    log.stderr(event.line);
    monitor.observe({ type: "activity", eventType: "stderr" }, now());
    if (event.kind === "json") {
      if (options.stderrMode === "all") context.stderr.write(event.raw);
      return;
    }
    const text = event.kind === "text" ? event.text : event.line.toString("utf8");
    if (text.trim()) lastStderr = text.trim();
    failure ??= classifyFailureLine(text, request.resume !== undefined);
    if (options.stderrMode !== "none") context.stderr.write(event.raw);
  };
  agent.stderr?.on("data", (chunk: Buffer) => {
    for (const event of stderrFramer.push(chunk)) onStderrLine(event);
    rearm();
  });

  const onResize = (): void => agent.resize(ptySize(context.stdout));
  if (options.pty) context.stdout.on("resize", onResize);

  const onAbort = (): void => {
    log.decision("turn_cancel_requested", { reason: request.signal.reason }, "warn");
    void kill("cancelled");
  };
  if (request.signal.aborted) onAbort();
  else request.signal.addEventListener("abort", onAbort, { once: true });

  rearm();
  const exit = await agent.closed;
  handleAll(framer.end());
  for (const event of stderrFramer.end()) onStderrLine(event);
  monitor.observe({ type: "exit", eventType: "exit" }, now());
  disarm();
  request.signal.removeEventListener("abort", onAbort);
  context.stdout.off("resize", onResize);
  agent.stdout.off("data", onStdout);
  if (killing) await killing;
  context.onAgent?.(undefined);
  log.decision(
    "agent_exited",
    { code: exit.code, signal: exit.signal, duration_ms: Math.round(now() - startedAt) },
    exit.code === 0 ? "debug" : "info",
  );

  const outcome: TurnOutcome = verdict
    ? verdict.verdict
    : request.signal.aborted
      ? "cancelled"
      : resultReceived
        ? "completed"
        : "abnormal";
  return {
    outcome,
    sessionId,
    exit,
    reason: verdict?.reason,
    failure,
    resultIsError,
    durationMs: Math.round(now() - startedAt),
    toolCalls,
    usage,
    lastStderr,
  };
}

function ptySize(stdout: NodeJS.WritableStream): { cols: number; rows: number } {
  const terminal = stdout as { columns?: number; rows?: number };
  return { cols: terminal.columns ?? 120, rows: terminal.rows ?? 40 };
}

import { dirname } from "node:path";
import {
  type AgentEvent,
  type ContractTool,
  checkToolCall,
  SUPPORTED_PROTOCOL_VERSIONS,
  toMonitorSignal,
  toolCallInfo,
  toolOutcome,
} from "@cursor-wrap/events";
import type { Formatter } from "@cursor-wrap/format";
import type { SessionLog } from "@cursor-wrap/logger";
import {
  createDeadlineTimer,
  createMonitor,
  type DeadlineTimer,
  type Monitor,
  type MonitorOptions,
  type MonitorSignal,
  type MonitorWarning,
  type Reason,
} from "@cursor-wrap/monitor";
import { failureOf, failureOfEnding } from "@cursor-wrap/recovery";
import {
  type AgentProcess,
  type ExitInfo,
  type StartOptions,
  start as startProcess,
} from "@cursor-wrap/supervisor";
import {
  type DrainableOutput,
  pumpStdout,
  relayStderr,
  type StderrMode,
  type StderrShow,
} from "./agent-output.js";
import type { CancelReason } from "./ending.js";
import {
  type FinalVerdict,
  MONITOR_WARNINGS_SHOWN,
  VERDICT_RECORDS,
  writeRecord,
} from "./log-records.js";
import { redactSecretArgs } from "./redact-args.js";
import { createTurnFacts, type TurnFacts } from "./turn-facts.js";
import type { TurnResult } from "./turn-result.js";

/** What a turn reads of the run's options. */
export interface TurnSettings {
  /** The agent binary. */
  agentBin: string;
  /** The agent's arguments for a turn (see `TurnRequest`). */
  agentArgs(turn: {
    resume: string | undefined;
    firstTurn: boolean;
    model?: string | undefined;
    profile?: string | undefined;
  }): string[];
  /**
   * The flags `agent status` gets to explain a sign-in failure: the turn's credentials and
   * endpoint (see `signInArgs`). Default: none (its environment is the turn's either way).
   */
  statusArgs?(turn: { profile?: string | undefined }): string[];
  /**
   * What an auth profile puts in the agent's environment (its credentials; `undefined` removes
   * a variable). Never logged.
   */
  profileEnv?(profile: string): Readonly<Record<string, string | undefined>>;
  /** Variables every agent gets on top (its trace context: `TRACEPARENT`), read at each start. */
  agentEnv?(): Readonly<Record<string, string>>;
  pty: boolean;
  killGraceMs: number;
  drainGraceMs: number;
  parseCap: number;
  stderrMode: StderrMode;
  /** The hang monitor's thresholds. */
  monitor: MonitorOptions;
  /** The agent's environment before the run adds to it. Default: `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** The agent's working directory. Default: this process's. */
  cwd?: string;
  /**
   * The agent's arguments as the log records them, secrets hidden. Default:
   * {@link redactSecretArgs} (the values of flags whose names say they are secret).
   */
  redactArgs?(args: readonly string[]): string[];
}

/** The turn's allow-list of tools (the adapter contract's `tools`). */
export interface TurnTools {
  tools: readonly ContractTool[];
  /** Stop the agent on a call the list does not allow (it has already started it). */
  enforce: boolean;
}

/** A terminal whose size a pty follows. */
export interface TerminalSize {
  columns?: number;
  rows?: number;
  on(event: "resize", listener: () => void): unknown;
  off(event: "resize", listener: () => void): unknown;
}

/** Everything a turn needs that outlives it. */
export interface TurnContext {
  settings: TurnSettings;
  log: SessionLog;
  formatter: Formatter;
  /**
   * Where the output goes, watched for backpressure: while it needs draining, the agent's
   * stdout and the monitor are paused.
   */
  stdout: DrainableOutput;
  /** The terminal a pty takes its size from (and follows). Default: 120×40. */
  terminal?: TerminalSize;
  /** The wrapper's stderr: agent stderr lines are shown here (per `--stderr`). */
  stderr: StderrShow;
  /** Told about the running agent (and `undefined` when it is gone), for last-resort kills. */
  onAgent?: (agent: AgentProcess | undefined) => void;
  /** Monotonic clock, ms. */
  now?: () => number;
  /** Starts the agent. Default: the supervisor's `start`; tests pass a fake. */
  start?: (options: StartOptions) => Promise<AgentProcess>;
  /** Told each chunk's bytes once forwarded (see `createBufferFreer`). */
  freeBuffers?: (bytes: number, largeBytes: number) => void;
  /** The allow-list of tools, if the turn has one. */
  tools?: TurnTools;
}

/** One turn: a prompt for one agent process. */
export interface TurnRequest {
  /** Text, or (a `-p` prompt from stdin) the bytes as they came. */
  prompt: string | Buffer;
  /** The session to resume. */
  resume: string | undefined;
  /** The session's first turn: the user's own `--resume`/`--continue` apply to it only. */
  firstTurn: boolean;
  /** The agent's version, if known (recorded with the spawn). */
  agentVersion?: string;
  /** A fallback model the recovery policy switched to (replaces the user's `--model`). */
  model?: string | undefined;
  /** The auth profile whose credentials the agent gets, if any (by name). */
  profile?: string | undefined;
  /** Aborting (with a {@link CancelReason}) cancels the turn: the agent's tree is killed. */
  signal: AbortSignal;
}

function ptySize(terminal: TerminalSize | undefined): { cols: number; rows: number } {
  return { cols: terminal?.columns ?? 120, rows: terminal?.rows ?? 40 };
}

/**
 * The agent's environment: the caller's (default `process.env`), where MCP proxies the agent
 * starts (`cursor-wrap mcp proxy`) find the session's log directory, and an auth profile's
 * credentials (never on the command line, which the log records and `ps` shows).
 */
export function agentEnvironment(
  context: TurnContext,
  request: Pick<TurnRequest, "profile">,
): NodeJS.ProcessEnv {
  const { settings, log } = context;
  const env: NodeJS.ProcessEnv = { ...(settings.env ?? process.env) };
  if (log.path !== "") env.CURSOR_WRAP_LOG_DIR = dirname(log.path);
  // The caller's additions (a trace's TRACEPARENT for this attempt), then the profile's.
  Object.assign(env, settings.agentEnv?.());
  if (request.profile !== undefined && settings.profileEnv) {
    for (const [name, value] of Object.entries(settings.profileEnv(request.profile))) {
      if (value === undefined) delete env[name];
      else env[name] = value;
    }
  }
  return env;
}

/** Start the agent for the turn, recording the spawn and its pid. */
async function startAgent(context: TurnContext, request: TurnRequest): Promise<AgentProcess> {
  const { settings, log } = context;
  const args = settings.agentArgs({
    resume: request.resume,
    firstTurn: request.firstTurn,
    model: request.model,
    profile: request.profile,
  });
  writeRecord(log, "agent_spawn", {
    bin: settings.agentBin,
    agent_version: request.agentVersion,
    args: (settings.redactArgs ?? redactSecretArgs)(args),
    resume: request.resume,
    pty: settings.pty,
    cwd: settings.cwd ?? process.cwd(),
    prompt_bytes: Buffer.byteLength(request.prompt),
    ...(request.model === undefined ? {} : { model: request.model }),
    ...(request.profile === undefined ? {} : { auth_profile: request.profile }),
  });
  const agent = await (context.start ?? startProcess)({
    bin: settings.agentBin,
    args,
    prompt: request.prompt,
    pty: settings.pty ? ptySize(context.terminal) : false,
    killGraceMs: settings.killGraceMs,
    drainGraceMs: settings.drainGraceMs,
    logger: log,
    env: agentEnvironment(context, request),
    ...(settings.cwd === undefined ? {} : { cwd: settings.cwd }),
  });
  // The run's token: MCP proxies under this agent record it, which ties their logs to this one.
  writeRecord(log, "agent_started", { pid: agent.pid, agent_token: agent.token });
  return agent;
}

/** Kills the agent's tree at most once, and records how it went. */
function createKiller(agent: AgentProcess, log: SessionLog) {
  let killing: Promise<void> | undefined;
  return {
    kill(reason: string): void {
      killing ??= agent.kill(reason).then((report) => {
        writeRecord(log, "agent_killed", {
          reason,
          code: report.code,
          signal: report.signal,
          steps: report.steps,
          survivors: report.survivors,
          duration_ms: report.durationMs,
        });
      });
    },
    /** Resolves once a kill, if one was started, is over and recorded. */
    done: (): Promise<void> => killing ?? Promise.resolve(),
  };
}

/** Sample the agent's process tree for the monitor, and log the sample (replay reads it back). */
function sampleLiveness(
  log: SessionLog,
  agent: Pick<AgentProcess, "sampleTree">,
): Extract<MonitorSignal, { type: "liveness" }> {
  const sample = agent.sampleTree();
  writeRecord(log, "liveness_sample", {
    cpu_ms: sample === undefined ? undefined : Math.round(sample.cpuMs),
    io_bytes: sample?.ioBytes,
    processes: sample?.pids.length,
    pids: sample?.pids.slice(0, 50),
    cost_ms: sample === undefined ? undefined : Math.round(sample.costMs * 1000) / 1000,
  });
  // No way to look at the processes (an unusual system): silence alone decides, as before.
  if (!sample) return { type: "liveness", cpuMs: 0, unmeasured: true };
  return {
    type: "liveness",
    cpuMs: sample.cpuMs,
    pids: sample.pids,
    ...(sample.ioBytes === undefined ? {} : { ioBytes: sample.ioBytes }),
  };
}

/**
 * Watch the monitor with one timer at its next deadline: sample the process tree when the
 * monitor asks, log and show soft warnings and quiet work, and on a verdict record it and
 * kill the agent.
 */
function watchVerdicts(
  context: TurnContext,
  monitor: Monitor,
  now: () => number,
  agent: Pick<AgentProcess, "sampleTree">,
  kill: (reason: string) => void,
  notice: Formatter["notice"],
): { timer: DeadlineTimer; verdict(): { verdict: FinalVerdict; reason: Reason } | undefined } {
  const { log } = context;
  let verdict: { verdict: FinalVerdict; reason: Reason } | undefined;
  // A sample found none of the agent's processes (see onDeadline).
  let treeGone = false;
  const timer = createDeadlineTimer({
    nextDeadline: () => monitor.nextDeadline(),
    now,
    onDeadline(at) {
      const first = monitor.check(at);
      let check = first;
      if (first.probe) {
        // The monitor wants to know whether the quiet agent is working (R-MON11): one sample
        // of its process tree, now, and the same question again.
        const liveness = sampleLiveness(log, agent);
        if (liveness.pids?.length === 0 && !treeGone) {
          // None of its processes is left: the agent has exited, and its exit (with what it
          // wrote last, still in the pipe on a loaded machine) is about to be read. That ends
          // the turn; silence until then is no hang. Once a turn: should the exit never be seen
          // (a process table that does not show the agent), the quiet starts again and the
          // verdict comes an idle timeout later.
          treeGone = true;
          monitor.observe({ type: "activity", eventType: "exited", aside: true }, at);
          return;
        }
        monitor.observe(liveness, at);
        check = monitor.check(at);
        // A soft warning is given once: keep the one the first look found.
        if (first.warning && !check.warning) check = { ...check, warning: first.warning };
      }
      if (check.working) {
        writeRecord(log, "quiet_but_working", {
          quiet_ms: check.working.quietMs,
          span_ms: check.working.spanMs,
          cpu_ms: check.working.cpuMs,
          io_bytes: check.working.ioBytes,
          summary: check.working.message,
        });
        notice(check.working.message);
      }
      if (check.warning) {
        writeRecord(log, "stall_warning", {
          kind: check.warning.kind,
          fires_in_ms: check.warning.firesInMs,
          summary: check.warning.message,
        });
        notice(check.warning.message, {
          firesAt: at + check.warning.firesInMs,
          ...(check.warning.kind === "idle" ? { quietSince: at - check.reason.idleMs } : {}),
        });
      }
      if (check.verdict === "ok" || check.verdict === "waiting") return;
      verdict = { verdict: check.verdict, reason: check.reason };
      timer.stop();
      const fields = { reason: check.reason, summary: check.reason.message };
      // Named as it ends up before the verdict is recorded: its hook and notification get that path.
      log.flag();
      switch (check.verdict) {
        case "hang":
          writeRecord(log, VERDICT_RECORDS.hang, { verdict: "hang", ...fields });
          break;
        case "linger":
          writeRecord(log, VERDICT_RECORDS.linger, { verdict: "linger", ...fields });
          break;
        case "budget":
          writeRecord(log, VERDICT_RECORDS.budget, { verdict: "budget", ...fields });
          break;
      }
      kill(check.reason.message);
    },
  });
  return { timer, verdict: () => verdict };
}

/**
 * Records the monitor's warnings, numbered per code: the first few are shown, the rest logged
 * quietly (an agent that repeats an oddity on every event must not flood the terminal), and
 * summed up at the end of the turn.
 */
function createWarningRecorder(log: SessionLog) {
  const counts = new Map<string, number>();
  return {
    record(warning: MonitorWarning): void {
      const nth = (counts.get(warning.code) ?? 0) + 1;
      counts.set(warning.code, nth);
      writeRecord(log, "monitor_warning", {
        code: warning.code,
        call_id: warning.id,
        summary: warning.message,
        nth,
      });
    },
    end(): void {
      const repeated = [...counts].filter(([, count]) => count > MONITOR_WARNINGS_SHOWN);
      if (repeated.length === 0) return;
      writeRecord(log, "monitor_warnings_repeated", {
        counts: Object.fromEntries(repeated),
        summary: repeated
          .map(
            ([code, count]) =>
              `${code} ${count} times (${count - MONITOR_WARNINGS_SHOWN} not shown)`,
          )
          .join(", "),
      });
    },
  };
}

type WarningRecorder = ReturnType<typeof createWarningRecorder>;

/** Observe one line of the agent's stdout and log what it decides. Returns true if a tool call started. */
function observeEvent(
  context: TurnContext,
  monitor: Monitor,
  facts: ReturnType<typeof createTurnFacts>,
  warnings: WarningRecorder,
  event: AgentEvent,
): boolean {
  const { log } = context;
  const signal = toMonitorSignal(event);
  const warning = monitor.observe(signal, event.recvAt.mono);
  if (warning) warnings.record(warning);
  if (facts.event(event, signal) && facts.facts.sessionId) {
    log.setSessionId(facts.facts.sessionId);
  }
  switch (signal.type) {
    case "toolStart":
      writeRecord(log, "tool_call_opened", {
        call_id: signal.id,
        kind: signal.kind,
        label: signal.label,
        timeout_ms: signal.timeoutMs,
        background: signal.background,
      });
      return true;
    case "toolEnd":
      writeRecord(log, "tool_call_closed", { call_id: signal.id, outcome: toolOutcome(event) });
      if (signal.background) {
        writeRecord(log, "background_work_started", {
          call_id: signal.id,
          pid: signal.background.pid,
          label: signal.background.label,
        });
      }
      break;
    case "backgroundEnd":
      writeRecord(log, "background_work_ended", { id: signal.id });
      break;
    case "done":
      writeRecord(log, "result_received", {
        is_error: facts.facts.resultIsError,
        duration_ms: facts.facts.resultDurationMs,
        usage: facts.facts.usage,
      });
      break;
    default:
      break;
  }
  return false;
}

/** The turn's result from what happened. */
function turnResult(
  facts: Readonly<TurnFacts>,
  exit: ExitInfo,
  verdict: { verdict: FinalVerdict; reason: Reason } | undefined,
  signal: AbortSignal,
  durationMs: number,
  answeredBeforeCancel: boolean,
): TurnResult {
  const base = {
    sessionId: facts.sessionId,
    exit,
    failure: facts.failure,
    resultIsError: facts.resultIsError,
    durationMs,
    toolCalls: facts.toolCalls,
    usage: facts.usage,
    lastStderr: facts.lastStderr,
    progressed: facts.progressed,
    answer: facts.resultText,
    agentModel: facts.agentModel,
  };
  if (verdict) return { ...base, outcome: verdict.verdict, reason: verdict.reason };
  const cancel = signal.reason as CancelReason | undefined;
  // Ctrl+C after the answer was complete (a lingering agent's exit being waited for) skips the
  // wait: the turn completed, as a linger kill's does (R-CLI3).
  if (signal.aborted) {
    if (answeredBeforeCancel && cancel?.kind === "turn")
      return { ...base, outcome: "completed", interrupted: true };
    return { ...base, outcome: "cancelled", cancel: cancel! };
  }
  // A result after an unsupported protocol version, or a tool call the turn refused, is not
  // one this side can trust. An error result whose own words name a failure (a usage limit,
  // say) is that failure: recovery may answer it (another model), where an error result alone
  // ends the turn.
  if (facts.resultReceived && !facts.rejected) {
    if (facts.resultIsError && facts.resultFailure) {
      return { ...base, failure: facts.resultFailure, outcome: "abnormal" };
    }
    return { ...base, outcome: "completed" };
  }
  // No result: what the agent said, or how it ended, tells what went wrong.
  const failure = failureOfEnding({
    named: facts.failure,
    reconnecting: facts.reconnecting,
    streamStarted: facts.streamStarted,
    exit,
    lastStderr: facts.lastStderr,
  });
  return { ...base, failure, outcome: "abnormal" };
}

/**
 * Run one turn (ARCHITECTURE "one turn, as data"): start the agent; for every line of its
 * stdout, parse once, log, forward, feed the monitor; keep one timer armed at the monitor's
 * next deadline; a verdict or a cancel kills the agent's tree.
 */
export async function runTurn(context: TurnContext, request: TurnRequest): Promise<TurnResult> {
  const { settings, log, formatter } = context;
  const now = context.now ?? (() => performance.now());
  const startedAt = now();
  formatter.startTurn();
  // Made first: a bad option of it throws before there is an agent to leave running.
  const monitor = createMonitor({ ...settings.monitor, startedAt, now });
  const agent = await startAgent(context, request);

  const facts = createTurnFacts({ resuming: request.resume !== undefined });
  const warnings = createWarningRecorder(log);
  const killer = createKiller(agent, log);
  const kill = (reason: string): void => {
    // A dying agent's last output must be read, whatever our reader does, for it to be reaped.
    stdout.release();
    killer.kill(reason);
  };
  // A callback of the host (the formatter, its stderr, onAgent) that throws must not leave the
  // agent running, nor throw out of a stream's handler or the watchdog's timer: the first
  // failure stops the agent, and the turn rejects with it once the agent is gone.
  let hostFailure: { error: unknown } | undefined;
  const guarded = (work: () => void): void => {
    try {
      work();
    } catch (error) {
      if (hostFailure) return;
      hostFailure = { error };
      kill(
        `the program running the agent failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
  const watch = watchVerdicts(context, monitor, now, agent, kill, (message, timing) =>
    guarded(() => formatter.notice(message, timing)),
  );
  // The adapter contract's protocol check: a stream that begins with a version event is
  // checked once; a version not supported fails closed (the agent is stopped at once).
  let protocolChecked = false;
  let protocolRejected = false;
  const checkProtocol = (): void => {
    const { protocolVersion, failure } = facts.facts;
    if (protocolChecked || protocolVersion === undefined) return;
    protocolChecked = true;
    const supported = failure?.kind !== "protocol";
    writeRecord(log, "protocol_version", {
      version: protocolVersion,
      supported,
      summary: supported
        ? `cursor-agent speaks protocol version ${protocolVersion}`
        : `cursor-agent speaks protocol version ${protocolVersion}; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}`,
    });
    if (!supported) {
      protocolRejected = true;
      kill(`unsupported protocol version ${protocolVersion}`);
    }
  };
  // The turn's allow-list: a call it does not allow is recorded; enforced, the agent is
  // stopped at once (it runs its own tools, so the call has already started).
  let toolRefused = false;
  const checkTool = (event: AgentEvent): void => {
    const turnTools = context.tools;
    const info = turnTools && toolCallInfo(event);
    if (!turnTools || !info) return;
    const violation = checkToolCall(info, turnTools.tools);
    if (!violation) return;
    writeRecord(log, "tool_refused", {
      call_id: info.callId,
      name: violation.name,
      kind: violation.source,
      enforced: turnTools.enforce,
      summary: violation.message,
    });
    if (!turnTools.enforce || toolRefused) return;
    toolRefused = true;
    facts.reject(failureOf(violation.source, violation.message));
    kill(violation.message);
  };

  const stdout = pumpStdout({
    source: agent.stdout,
    sink: context.stdout,
    parseCap: settings.parseCap,
    onEvents: (events, forward) => guarded(() => onEvents(events, forward)),
    // Output held up by our reader is not the agent's silence; the budget still runs (R-MON4).
    onPause() {
      monitor.pause(now());
      watch.timer.rearm({ exact: true });
    },
    onResume() {
      monitor.resume(now());
      watch.timer.rearm({ exact: true });
    },
    ...(context.freeBuffers ? { freeBuffers: context.freeBuffers } : {}),
  });
  function onEvents(events: AgentEvent[], forward: boolean): void {
    // The records of a chunk, its raw lines and the decisions they lead to, are written (one
    // write(2)) before any line of it is forwarded.
    log.beginChunk(events);
    let toolStarted = false;
    // After an unsupported protocol version nothing more is forwarded (it is logged).
    let forwarded = forward && !protocolRejected ? events.length : 0;
    for (let index = 0; index < events.length; index += 1) {
      // A stream in a protocol this side does not speak is logged, not read: what follows the
      // version line is no progress, no session, no answer (the agent is being stopped).
      if (protocolRejected) break;
      const event = events[index]!;
      if (observeEvent(context, monitor, facts, warnings, event)) {
        toolStarted = true;
        checkTool(event);
      }
      checkProtocol();
      if (protocolRejected) forwarded = Math.min(forwarded, index + 1);
    }
    log.endChunk();
    for (let index = 0; index < forwarded; index += 1) formatter.write(events[index]!);
    formatter.flush();
    // Ordinary lines only push the deadline a little later: the timer stays where it is
    // and catches up when it fires. A tool call can push it minutes later: sleep until then.
    watch.timer.rearm({ exact: toolStarted });
  }
  const stderr = relayStderr({
    source: agent.stderr,
    log,
    show: {
      write: (text) => guarded(() => context.stderr.write(text)),
      get writableNeedDrain() {
        return context.stderr.writableNeedDrain;
      },
    },
    mode: settings.stderrMode,
    onLine(line) {
      monitor.observe({ type: "activity", eventType: "stderr", aside: true }, now());
      if (!line.json) facts.stderrText(line.text);
      // An error event the agent wrote on stderr only (mirrored ones name the same failure).
      else if (line.event.kind === "json" && line.event.type === "error")
        facts.stderrError(line.event);
    },
    onChunk: () => watch.timer.rearm(),
  });

  const { terminal } = context;
  const onResize = (): void => agent.resize(ptySize(terminal));
  if (settings.pty) terminal?.on("resize", onResize);
  guarded(() => context.onAgent?.(agent));
  // Whether the answer was complete when the cancel came (what arrives during the kill does
  // not make a cancelled turn a completed one).
  let answeredBeforeCancel = false;
  const onAbort = (): void => {
    const { resultReceived, rejected, resultIsError } = facts.facts;
    answeredBeforeCancel = resultReceived && !rejected && !resultIsError;
    writeRecord(log, "turn_cancel_requested", { reason: request.signal.reason as CancelReason });
    kill("cancelled");
  };
  if (request.signal.aborted) onAbort();
  else request.signal.addEventListener("abort", onAbort, { once: true });

  watch.timer.rearm();
  const exit = await agent.closed;
  stdout.end();
  stderr.end();
  monitor.observe({ type: "exit", eventType: "exit" }, now());
  watch.timer.stop();
  request.signal.removeEventListener("abort", onAbort);
  if (settings.pty) terminal?.off("resize", onResize);
  await killer.done();
  try {
    context.onAgent?.(undefined);
  } catch (error) {
    hostFailure ??= { error };
  }
  warnings.end();
  if (stderr.notShownLines > 0) {
    writeRecord(log, "agent_stderr_not_shown", {
      lines: stderr.notShownLines,
      summary: `${stderr.notShownLines} lines of agent stderr were not shown (the wrapper's stderr was behind); all are in the log`,
    });
  }
  if (stdout.droppedBytes > 0) {
    writeRecord(log, "output_dropped", {
      bytes: stdout.droppedBytes,
      summary: `${stdout.droppedBytes} bytes the killed agent wrote while stdout's reader was behind are in the log only`,
    });
  }
  const durationMs = Math.round(now() - startedAt);
  writeRecord(log, "agent_exited", {
    code: exit.code,
    signal: exit.signal,
    duration_ms: durationMs,
  });
  if (hostFailure) throw hostFailure.error;
  return turnResult(
    facts.facts,
    exit,
    watch.verdict(),
    request.signal,
    durationMs,
    answeredBeforeCancel,
  );
}

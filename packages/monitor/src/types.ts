/**
 * A neutral description of one thing the agent did, as the monitor sees it. Any agent or SDK
 * stream can be mapped onto these; `@cursor-wrap/events` maps cursor-agent's stream-json.
 */
export type MonitorSignal =
  | SessionSignal
  | ToolStartSignal
  | ToolEndSignal
  | BackgroundEndSignal
  | DoneSignal
  | ActivitySignal
  | LivenessSignal
  | ExitSignal;

interface SignalBase {
  /** The event that produced the signal (e.g. `"thinking/delta"`), reported as "last event". */
  eventType?: string;
}

/** The agent announced its session. */
export interface SessionSignal extends SignalBase {
  type: "session";
  sessionId: string;
}

/** A tool call started. */
export interface ToolStartSignal extends SignalBase {
  type: "toolStart";
  /** Opaque call id; matched against {@link ToolEndSignal.id} by exact string equality. */
  id: string;
  /** Tool kind (e.g. `"shell"`, `"mcp"`), used for per-kind default timeouts. */
  kind: string;
  /** The timeout the agent declared for this call, in ms, when it declared one. */
  timeoutMs?: number;
  /** A short human label (command, path, `provider/tool`). */
  label?: string;
  /** Background calls (e.g. a backgrounded shell) return at once and are never waited on. */
  background?: boolean;
}

/** A tool call ended (any outcome). */
export interface ToolEndSignal extends SignalBase {
  type: "toolEnd";
  id: string;
  /**
   * The call ended by moving its work to the background (a shell past its timeout that the
   * agent backgrounded): its process lives on, and an agent may wait for it before its result.
   */
  background?: BackgroundWork;
}

/** Work the agent moved to the background. */
export interface BackgroundWork {
  /** Its process, when the agent said (then a liveness sample without it means it ended). */
  pid?: number;
  /** A short human label (the command). */
  label?: string;
  /** Other ids the agent may name it by when it ends (a shell id). */
  aliases?: readonly string[];
}

/** Background work ended: one piece by its id, or (no id) all of it. */
export interface BackgroundEndSignal extends SignalBase {
  type: "backgroundEnd";
  id?: string;
}

/**
 * A sample of the agent's process tree, taken when the monitor asks for one
 * ({@link CheckResult.probe}): what the tree did since the previous sample. Not a sign of life
 * by itself; the monitor compares it with the time it covers (R-MON11).
 */
export interface LivenessSignal extends SignalBase {
  type: "liveness";
  /** CPU time the tree used since the previous sample, ms. */
  cpuMs: number;
  /** Bytes the tree read and wrote since the previous sample (sockets, pipes, files), if known. */
  ioBytes?: number;
  /** The tree's processes now; background work whose pid is missing has ended. */
  pids?: readonly number[];
  /**
   * The tree could not be looked at (no process table here, no sample recorded): `cpuMs` is
   * not a measurement, the agent is taken as parked, and messages say so instead of a figure.
   */
  unmeasured?: boolean;
}

/** The agent reported its final result; from now on only the process exit is expected. */
export interface DoneSignal extends SignalBase {
  type: "done";
}

/** Any other sign of life: a line of any kind. */
export interface ActivitySignal extends SignalBase {
  type: "activity";
  /** What the agent is busy with, for {@link MonitorSnapshot.phase}. */
  phase?: "thinking" | "responding";
  /**
   * A sign of life beside the stream (a line on the agent's stderr): it ends the current
   * silence, but it is not the stream's first output, so until that comes the start-up
   * allowance (`firstOutputMs`) still applies.
   */
  aside?: boolean;
}

/** The agent process exited: nothing can hang any more. */
export interface ExitSignal extends SignalBase {
  type: "exit";
}

/**
 * The monitor's assessment:
 * - `ok`: no tool running, silence within the idle timeout (or the turn completed)
 * - `waiting`: tools running, each within its deadline
 * - `hang`: idle too long, or every running tool past its deadline
 * - `linger`: the result arrived but the process did not exit within the exit grace
 * - `budget`: the turn ran past its wall-clock budget
 */
export type Verdict = "ok" | "waiting" | "hang" | "linger" | "budget";

/**
 * Which threshold a reason is about. `none` for `ok` and `waiting`. `background`: the agent
 * waited on background work past its budget.
 */
export type ReasonKind = "idle" | "tool" | "background" | "linger" | "budget" | "none";

/** One running tool call, as of the time of a check. */
export interface OpenCallDetail {
  id: string;
  kind: string;
  label?: string;
  /** Time since the call started, ms. */
  elapsedMs: number;
  /** The timeout the agent declared, ms, if any. */
  timeoutMs?: number;
  /** How long the call may run, from its start, before it counts as expired, ms. */
  limitMs: number;
  /** Time left before the call expires, ms (negative once expired). */
  remainingMs: number;
}

/** Structured explanation of a verdict (R-MON6). */
export interface Reason {
  kind: ReasonKind;
  /** Time since the last signal of any kind (or since the monitor started), ms. */
  idleMs: number;
  /** Every call open at the verdict. */
  openCallCount: number;
  lastEventType?: string;
  sessionId?: string;
  /**
   * The open calls, at most 10 (`CALLS_LISTED`): those nearest or furthest past their
   * deadline, in the order they started.
   */
  openCalls: OpenCallDetail[];
  /** Background work the agent was waiting on (kind `background`). */
  background?: BackgroundDetail[];
  /** What the last sample of the process tree said (with liveness on). */
  liveness?: LivenessReport;
  /** One line for people, e.g. `idle 61.0s with no tool running (last event: thinking/delta)`. */
  message: string;
}

/** One piece of background work. */
export interface BackgroundDetail {
  id: string;
  pid?: number;
  label?: string;
  /** Time since it went to the background, ms. */
  elapsedMs: number;
}

/** What a sample of the process tree showed over the time it covers. */
export interface LivenessReport {
  /** The tree made progress: CPU time or bytes moved above the thresholds. */
  working: boolean;
  /** The time the sample covers (since the previous one), ms. */
  spanMs: number;
  cpuMs: number;
  ioBytes?: number;
  /** Silence so far, ms. */
  quietMs: number;
  /** No sample of the span could look at the tree: taken as parked, no figure measured. */
  unmeasured?: boolean;
  /** E.g. `quiet for 2m, working: 4.1s CPU, 3.2 MB moved in 30.0s`. */
  message: string;
}

/** Result of {@link Monitor.check}. */
export interface CheckResult {
  verdict: Verdict;
  reason: Reason;
  /**
   * Set once per silence when half of the threshold that would fire next has passed: the agent
   * is quiet, not yet hung. Callers log it and may show it (R-MON10).
   */
  warning?: SoftWarning;
  /**
   * With liveness on: sample the process tree now, feed it with `observe({ type: "liveness",
   * … })`, and check again. Asked for halfway through a silence (the baseline) and when a
   * verdict would fire (the decision); never otherwise, so there is no polling.
   */
  probe?: boolean;
  /** The sample just observed showed a quiet agent still working: no verdict, and why. */
  working?: LivenessReport;
}

/** A "stalling?" notice emitted before any verdict fires. */
export interface SoftWarning {
  kind: "idle" | "tool" | "background";
  /** When the verdict would fire if nothing happens, ms from now. */
  firesInMs: number;
  message: string;
}

/** A tolerated oddity in the signal sequence (R-MON7); never a reason to kill. */
export interface MonitorWarning {
  code: "unmatched-end" | "duplicate-start" | "after-done";
  id?: string;
  message: string;
}

/** What the agent is doing right now, for "quiet but healthy" versus "stalling" displays. */
export type Phase =
  | "starting"
  | "thinking"
  | "responding"
  | "tool"
  | "working"
  | "background"
  | "done"
  | "exited";

/** Result of {@link Monitor.snapshot}. */
export interface MonitorSnapshot {
  phase: Phase;
  verdict: Verdict;
  sessionId?: string;
  lastEventType?: string;
  /** Time since the monitor started, ms. */
  elapsedMs: number;
  /** Time since the last signal, ms. */
  silentMs: number;
  openCalls: OpenCallDetail[];
  /** Background work the agent may be waiting on. */
  background: BackgroundDetail[];
  /** The last sample of the tree during this silence showed it working. */
  quietButWorking?: LivenessReport;
  /** Time until the verdict can next change, ms; undefined when it never will. */
  nextDeadlineInMs?: number;
  /** Time until a hang, linger or budget verdict would fire if nothing happens, ms. */
  verdictInMs?: number;
}

/** Options for {@link createMonitor}. All durations in milliseconds; `Infinity` is no limit. */
export interface MonitorOptions {
  /** Silence with no tool running that counts as a hang. Default 60000. */
  idleTimeoutMs?: number;
  /** Extra time a tool gets past its declared timeout; also the silence an expired tool needs. Default 30000. */
  toolGraceMs?: number;
  /** Time the process gets to exit after the result. Default 10000. */
  exitGraceMs?: number;
  /** Wall-clock budget for the whole turn. Default: none. */
  maxTurnMs?: number;
  /**
   * Allowance per tool kind for calls that declare no timeout, e.g. `{ mcp: 600000 }`.
   * Merged over {@link DEFAULT_TOOL_TIMEOUTS}; kinds not listed fall back to `idleTimeoutMs`.
   */
  toolTimeouts?: Readonly<Record<string, number>>;
  /** Fraction of a threshold at which a soft warning is emitted; 0 disables. Default 0.5. */
  warnFraction?: number;
  /** Silence before the first signal that counts as a hang (start-up can be slow). Default `idleTimeoutMs`. */
  firstOutputMs?: number;
  /**
   * How long the agent may wait, silent, on background work (a backgrounded shell it must
   * see finish before its result) before that is a verdict (`hang`, kind `background`)
   * instead of the idle rule. Default 600000 (10 min).
   */
  backgroundWaitMs?: number;
  /**
   * Quiet but working (R-MON11): before an idle or tool hang, and before a linger, the monitor
   * asks for a sample of the agent's process tree ({@link CheckResult.probe}) and calls a tree
   * that made progress working, not hung. Off when undefined: silence alone decides.
   */
  liveness?: LivenessOptions;
  /** Monotonic clock in ms. Default `performance.now()`. */
  now?: () => number;
  /** Monotonic time the turn started (the process was spawned). Default `now()` at creation. */
  startedAt?: number;
}

/** Options for the quiet-but-working rule. Durations in ms; `Infinity` is no limit. */
export interface LivenessOptions {
  /** Silence that is a hang however busy the tree is. Default 1800000 (30 min). */
  maxQuietMs?: number;
  /** How long after the result a draining agent may take to exit. Default 300000 (5 min). */
  maxDrainMs?: number;
  /** CPU time per time covered that counts as working. Default 0.05 (5% of a core). */
  minCpuFraction?: number;
  /** Bytes moved per second that count as working. Default 256. */
  minIoBytesPerSecond?: number;
}

/** The hang state machine. Pure: no timers, no I/O. */
export interface Monitor {
  /** Feed one signal. Returns a warning for tolerated oddities (R-MON7). */
  observe(signal: MonitorSignal, now?: number): MonitorWarning | undefined;
  /**
   * The agent's output is held up by its reader (a slow consumer of the caller's output): its
   * silence is not its own. Until {@link resume}, only the budget runs; idle, tool and linger
   * deadlines wait.
   */
  pause(now?: number): void;
  /** Output flows again: silence counts from now. */
  resume(now?: number): void;
  /** Assess the state at `now`. */
  check(now?: number): CheckResult;
  /**
   * Monotonic time at which {@link check} can next return something new (a verdict or a soft
   * warning), or undefined when nothing can change any more. Arm one timer for it.
   */
  nextDeadline(): number | undefined;
  /** What the agent is doing, for live status displays. */
  snapshot(now?: number): MonitorSnapshot;
}

/**
 * A neutral description of one thing the agent did, as the monitor sees it. Any agent or SDK
 * stream can be mapped onto these; `@cursor-wrap/events` maps cursor-agent's stream-json.
 */
export type MonitorSignal =
  | SessionSignal
  | ToolStartSignal
  | ToolEndSignal
  | DoneSignal
  | ActivitySignal
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

/** Which threshold a reason is about. `none` for `ok` and `waiting`. */
export type ReasonKind = "idle" | "tool" | "linger" | "budget" | "none";

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
  openCallCount: number;
  lastEventType?: string;
  sessionId?: string;
  openCalls: OpenCallDetail[];
  /** One line for people, e.g. `idle 61.0s with no tool running (last event: thinking/delta)`. */
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
}

/** A "stalling?" notice emitted before any verdict fires. */
export interface SoftWarning {
  kind: "idle" | "tool";
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
export type Phase = "starting" | "thinking" | "responding" | "tool" | "working" | "done" | "exited";

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
  /** Monotonic clock in ms. Default `performance.now()`. */
  now?: () => number;
  /** Monotonic time the turn started (the process was spawned). Default `now()` at creation. */
  startedAt?: number;
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

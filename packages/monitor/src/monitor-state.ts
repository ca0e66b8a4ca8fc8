import { type Thresholds, toolAllowance } from "./thresholds.js";
import type {
  BackgroundDetail,
  BackgroundEndSignal,
  LivenessReport,
  LivenessSignal,
  MonitorSignal,
  MonitorWarning,
  OpenCallDetail,
  Phase,
  ToolEndSignal,
  ToolStartSignal,
} from "./types.js";

/** A tool call that started and has not ended. */
export interface OpenCall {
  id: string;
  kind: string;
  label: string | undefined;
  startedAt: number;
  timeoutMs: number | undefined;
  /** Its allowance from its start (see `toolAllowance`), ms. */
  limitMs: number;
}

/** Work the agent moved to the background (it may wait for it before its result). */
export interface BackgroundEntry {
  id: string;
  aliases: readonly string[];
  pid: number | undefined;
  label: string | undefined;
  since: number;
}

/** What the samples of the process tree have shown (R-MON11); written by `liveness.ts` only. */
export interface SampleState {
  /** When the tree was last sampled. */
  lastSampleAt: number | undefined;
  /** When a sample last found it working. */
  workingAt: number | undefined;
  /** The report of that sample. */
  lastWorking: LivenessReport | undefined;
  /** The last sample that decided something (working or parked). */
  decision: { at: number; report: LivenessReport } | undefined;
  /** A sample with no baseline in this silence, or one that could not tell: decide with another one at this time. */
  retryAt: number | undefined;
  /**
   * A span too short to tell a parked tree from a busy one (see `takeSample`): what it showed,
   * from its baseline at `since`; the next sample judges the two spans as one.
   */
  undecided:
    | { since: number; cpuMs: number; ioBytes: number | undefined; processes: number }
    | undefined;
}

/**
 * Everything the monitor remembers, as plain data: signals change it (`applySignal`,
 * `pauseOutput`, `resumeOutput`), samples change `samples`, and the deadline rules, the
 * verdict and the reasons only read it.
 */
export interface MonitorState {
  /** When the turn started (the process was spawned). */
  readonly startedAt: number;
  /** The last signal (or the end of a pause): silence is measured from here. */
  lastAt: number;
  lastEventType: string | undefined;
  lastPhase: "thinking" | "responding" | undefined;
  sessionId: string | undefined;
  readonly openCalls: Map<string, OpenCall>;
  /** Ids of calls started in the background: they return at once and are never waited on. */
  readonly backgroundCalls: Set<string>;
  readonly backgroundWork: Map<string, BackgroundEntry>;
  /** When the result arrived. */
  doneAt: number | undefined;
  exited: boolean;
  /** Set while the agent's output is held up by a slow reader of ours (see `pauseOutput`). */
  pausedAt: number | undefined;
  /** The "after the result" notice was given (once per turn). */
  warnedAfterDone: boolean;
  /** The hang deadline a soft warning was already emitted for: one warning per silence. */
  warnedFor: number | undefined;
  readonly samples: SampleState;
}

/** The state of a turn that started at `startedAt` and has said nothing yet. */
export function createMonitorState(startedAt: number): MonitorState {
  return {
    startedAt,
    lastAt: startedAt,
    lastEventType: undefined,
    lastPhase: undefined,
    sessionId: undefined,
    openCalls: new Map(),
    backgroundCalls: new Set(),
    backgroundWork: new Map(),
    doneAt: undefined,
    exited: false,
    pausedAt: undefined,
    warnedAfterDone: false,
    warnedFor: undefined,
    samples: {
      lastSampleAt: undefined,
      workingAt: undefined,
      lastWorking: undefined,
      decision: undefined,
      retryAt: undefined,
      undecided: undefined,
    },
  };
}

/** A number from the agent's output, kept only when it is finite and >= 0. */
export const finite = (value: number | undefined): number | undefined =>
  value !== undefined && Number.isFinite(value) && value >= 0 ? value : undefined;

/** A tolerated oddity in the signal sequence (R-MON7); `reasons.ts` words it. */
export interface Oddity {
  code: MonitorWarning["code"];
  /** The tool call it is about. */
  id?: string;
}

/**
 * Take in one signal other than a liveness sample (those are not output; see `liveness.ts`).
 * Returns the oddity, if the signal was one.
 */
export function applySignal(
  state: MonitorState,
  thresholds: Thresholds,
  signal: Exclude<MonitorSignal, LivenessSignal>,
  now: number,
): Oddity | undefined {
  if (now > state.lastAt) state.lastAt = now;
  state.lastEventType = signal.eventType ?? signal.type;
  if (state.exited) return undefined;
  if (signal.type === "backgroundEnd") {
    endBackgroundWork(state, signal);
    return undefined;
  }
  if (state.doneAt !== undefined && signal.type !== "exit") {
    // With liveness on, output after the result is the agent draining (background work
    // reporting in), which extends the time it has to exit.
    if (thresholds.liveness || state.warnedAfterDone) return undefined;
    state.warnedAfterDone = true;
    return { code: "after-done" };
  }
  switch (signal.type) {
    case "session":
      state.sessionId = signal.sessionId;
      return undefined;
    case "activity":
      state.lastPhase = signal.phase;
      return undefined;
    case "toolStart":
      return startTool(state, thresholds, signal, now);
    case "toolEnd":
      return endTool(state, signal, now);
    case "done":
      state.doneAt = now;
      return undefined;
    case "exit":
      state.exited = true;
      return undefined;
    default: {
      const unreachable: never = signal;
      return unreachable;
    }
  }
}

function startTool(
  state: MonitorState,
  thresholds: Thresholds,
  signal: ToolStartSignal,
  now: number,
): Oddity | undefined {
  if (signal.background) {
    state.backgroundCalls.add(signal.id);
    return undefined;
  }
  const duplicate = state.openCalls.has(signal.id);
  // A repeated start restarts the call's clock: never kill on the earlier one.
  state.openCalls.set(signal.id, {
    id: signal.id,
    kind: signal.kind,
    label: signal.label,
    startedAt: now,
    timeoutMs: signal.timeoutMs,
    limitMs: toolAllowance(signal.kind, signal.timeoutMs, thresholds),
  });
  return duplicate ? { code: "duplicate-start", id: signal.id } : undefined;
}

function endTool(state: MonitorState, signal: ToolEndSignal, now: number): Oddity | undefined {
  const call = state.openCalls.get(signal.id);
  if (signal.background) {
    state.backgroundWork.set(signal.id, {
      id: signal.id,
      aliases: signal.background.aliases ?? [],
      pid: finite(signal.background.pid),
      label: signal.background.label ?? call?.label,
      since: now,
    });
  }
  if (state.openCalls.delete(signal.id) || state.backgroundCalls.delete(signal.id)) {
    return undefined;
  }
  return { code: "unmatched-end", id: signal.id };
}

function endBackgroundWork(state: MonitorState, signal: BackgroundEndSignal): void {
  if (signal.id === undefined) {
    state.backgroundWork.clear();
    return;
  }
  for (const [id, work] of state.backgroundWork) {
    if (id === signal.id || work.aliases.includes(signal.id)) state.backgroundWork.delete(id);
  }
}

/** A sample of the tree lists its processes: background work whose pid is gone has ended. */
export function dropEndedBackgroundWork(state: MonitorState, pids: readonly number[]): void {
  const alive = new Set(pids);
  for (const [id, work] of state.backgroundWork) {
    if (work.pid !== undefined && !alive.has(work.pid)) state.backgroundWork.delete(id);
  }
}

/** The agent's output is held up by our reader: its silence stops being its own. */
export function pauseOutput(state: MonitorState, now: number): void {
  state.pausedAt ??= now;
}

/**
 * The agent can speak again: count its silence from now, and its time to exit after a result
 * without the time it could not write.
 */
export function resumeOutput(state: MonitorState, now: number): void {
  if (state.pausedAt === undefined) return;
  if (state.doneAt !== undefined && now > state.pausedAt) state.doneAt += now - state.pausedAt;
  state.pausedAt = undefined;
  if (now > state.lastAt) state.lastAt = now;
}

/** Where the current silence is measured from: the last signal, or the last time the tree was seen working. */
export function quietAnchor(state: MonitorState): number {
  const { workingAt } = state.samples;
  return workingAt !== undefined && workingAt > state.lastAt ? workingAt : state.lastAt;
}

/** The tree was seen working in this silence: the report that said so. */
export function quietButWorking(state: MonitorState): LivenessReport | undefined {
  const { lastWorking, workingAt } = state.samples;
  return lastWorking && workingAt !== undefined && workingAt > state.lastAt
    ? lastWorking
    : undefined;
}

/** What the agent is doing, for {@link MonitorSnapshot.phase}. */
export function phaseOf(state: MonitorState): Phase {
  if (state.exited) return "exited";
  if (state.doneAt !== undefined) return "done";
  if (state.openCalls.size > 0) return "tool";
  if (state.backgroundWork.size > 0) return "background";
  if (state.lastEventType === undefined) return "starting";
  return state.lastPhase ?? "working";
}

/** The running tool calls as of `now`. */
export function openCallDetails(state: MonitorState, now: number): OpenCallDetail[] {
  const details: OpenCallDetail[] = [];
  for (const call of state.openCalls.values()) {
    const elapsedMs = Math.round(now - call.startedAt);
    const detail: OpenCallDetail = {
      id: call.id,
      kind: call.kind,
      elapsedMs,
      limitMs: call.limitMs,
      remainingMs: call.limitMs - elapsedMs,
    };
    if (call.label !== undefined) detail.label = call.label;
    if (call.timeoutMs !== undefined) detail.timeoutMs = call.timeoutMs;
    details.push(detail);
  }
  return details;
}

/** The background work as of `now`. */
export function backgroundDetails(state: MonitorState, now: number): BackgroundDetail[] {
  return [...state.backgroundWork.values()].map((work) => {
    const detail: BackgroundDetail = { id: work.id, elapsedMs: Math.round(now - work.since) };
    if (work.pid !== undefined) detail.pid = work.pid;
    if (work.label !== undefined) detail.label = work.label;
    return detail;
  });
}

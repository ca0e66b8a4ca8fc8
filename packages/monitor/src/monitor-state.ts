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
    | {
        since: number;
        cpuMs: number;
        ioBytes: number | undefined;
        processes: number;
        unmeasured: boolean;
      }
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
  /** The running tool calls, in start order: changed by {@link openCall} and {@link closeCall} only. */
  readonly openCalls: Map<string, OpenCall>;
  /** The open calls by when their allowance runs out (see {@link lastToExpire}). */
  readonly expiries: ExpiryQueue;
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
    expiries: { heap: [], nextOrder: 0 },
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

/**
 * The open calls ordered by when their allowance runs out, latest first, and among equals the
 * first started (the order of `openCalls`): a binary heap whose top is the tool rule's
 * deadline. With many calls open (a stream whose completions never come) looking at every one
 * for each chunk and each tool call cost the wrapper more than all of its other monitoring.
 * An entry whose call has ended or restarted stays in the heap until it reaches the top (or
 * the heap is rebuilt): its call is no longer the one `openCalls` holds under its id.
 */
export interface ExpiryQueue {
  heap: QueuedCall[];
  /** The start order the next new call gets. */
  nextOrder: number;
}

/** A call in the {@link ExpiryQueue}, with its place in start order. */
interface QueuedCall {
  call: OpenCall;
  order: number;
}

const expiresAt = (call: OpenCall): number => call.startedAt + call.limitMs;

/** `a` comes out of the queue before `b`. */
const before = (a: QueuedCall, b: QueuedCall): boolean => {
  const difference = expiresAt(a.call) - expiresAt(b.call);
  return difference > 0 || (difference === 0 && a.order < b.order);
};

function siftUp(heap: QueuedCall[], index: number): void {
  const entry = heap[index]!;
  while (index > 0) {
    const parent = (index - 1) >> 1;
    if (!before(entry, heap[parent]!)) break;
    heap[index] = heap[parent]!;
    index = parent;
  }
  heap[index] = entry;
}

function siftDown(heap: QueuedCall[], index: number): void {
  const entry = heap[index]!;
  for (;;) {
    let child = 2 * index + 1;
    if (child >= heap.length) break;
    if (child + 1 < heap.length && before(heap[child + 1]!, heap[child]!)) child += 1;
    if (!before(heap[child]!, entry)) break;
    heap[index] = heap[child]!;
    index = child;
  }
  heap[index] = entry;
}

const isCurrent = (state: MonitorState, entry: QueuedCall): boolean =>
  state.openCalls.get(entry.call.id) === entry.call;

/** Drop ended calls off the top; rebuild the heap when they make up most of it. */
function tidy(state: MonitorState): void {
  const queue = state.expiries;
  let { heap } = queue;
  if (heap.length > 2 * state.openCalls.size + 64) {
    heap = heap.filter((entry) => isCurrent(state, entry));
    for (let index = (heap.length >> 1) - 1; index >= 0; index -= 1) siftDown(heap, index);
    queue.heap = heap;
  }
  while (heap.length > 0 && !isCurrent(state, heap[0]!)) {
    const last = heap.pop()!;
    if (heap.length === 0) break;
    heap[0] = last;
    siftDown(heap, 0);
  }
}

/** Open a tool call, or restart one with the same id (it keeps its place in start order). */
export function openCall(state: MonitorState, call: OpenCall): void {
  const queue = state.expiries;
  const earlier = state.openCalls.get(call.id);
  let order = queue.nextOrder;
  if (earlier === undefined) queue.nextOrder += 1;
  else order = queue.heap.find((entry) => entry.call === earlier)?.order ?? order;
  state.openCalls.set(call.id, call);
  queue.heap.push({ call, order });
  siftUp(queue.heap, queue.heap.length - 1);
  tidy(state);
}

/** End a tool call; false if no call with that id was open. */
export function closeCall(state: MonitorState, id: string): boolean {
  if (!state.openCalls.delete(id)) return false;
  tidy(state);
  return true;
}

/**
 * The open call whose allowance runs out last (the first started among equals), or undefined
 * when none is open.
 */
export function lastToExpire(state: MonitorState): OpenCall | undefined {
  return state.expiries.heap[0]?.call;
}

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
  // A line beside the stream before the stream's first: alive, still starting.
  if (signal.type === "activity" && signal.aside === true && state.lastEventType === undefined) {
    return undefined;
  }
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
  openCall(state, {
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
  if (closeCall(state, signal.id) || state.backgroundCalls.delete(signal.id)) {
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

/**
 * The running tool calls as of `now`, in the order they started. With `limit`, at most that
 * many: those nearest their deadline or furthest past it (a verdict's or a warning's words, a
 * log record and a report name these; an agent can leave any number of calls open).
 */
export function openCallDetails(
  state: MonitorState,
  now: number,
  limit?: number,
): OpenCallDetail[] {
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
  if (limit === undefined || details.length <= limit) return details;
  const kept = new Set(
    details
      .map((detail, index) => ({ remainingMs: detail.remainingMs, index }))
      .sort((a, b) => a.remainingMs - b.remainingMs || a.index - b.index)
      .slice(0, limit)
      .map(({ index }) => index),
  );
  return details.filter((_, index) => kept.has(index));
}

/** The background work as of `now`, oldest first; with `limit`, at most that many. */
export function backgroundDetails(
  state: MonitorState,
  now: number,
  limit = Number.POSITIVE_INFINITY,
): BackgroundDetail[] {
  return [...state.backgroundWork.values()].slice(0, limit).map((work) => {
    const detail: BackgroundDetail = { id: work.id, elapsedMs: Math.round(now - work.since) };
    if (work.pid !== undefined) detail.pid = work.pid;
    if (work.label !== undefined) detail.label = work.label;
    return detail;
  });
}

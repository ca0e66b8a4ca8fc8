import { lastToExpire, type MonitorState, quietAnchor } from "./monitor-state.js";
import type { Thresholds } from "./thresholds.js";

// The deadlines: one small function per rule, each reading the state and the thresholds and
// answering when its verdict (or its warning, or its sample) is due, or `undefined` when the
// rule does not apply. `hangDeadline`, `exitDeadline` and `nextDeadline` combine them.

/** The rule a deadline comes from: what `nextDeadline()` is waiting for. */
export type DeadlineRule =
  | "first-output"
  | "idle"
  | "tool"
  | "background-wait"
  | "max-quiet"
  | "linger"
  | "drain"
  | "budget"
  | "soft-warning"
  | "sample"
  | "sample-retry";

/** When a hang verdict fires, and the span it measures (for soft warnings and samples). */
export interface HangDeadline {
  /** What the verdict is about, as in its reason and soft warning. */
  kind: "idle" | "tool" | "background";
  rule: "first-output" | "idle" | "tool" | "background-wait" | "max-quiet";
  at: number;
  /** Where the measured span starts. */
  anchor: number;
  span: number;
}

/** When the process must have exited after its result. */
export interface ExitDeadline {
  kind: "linger";
  rule: "linger" | "drain";
  at: number;
  anchor: number;
  span: number;
}

/** A deadline a verdict fires at. */
export type Deadline = HangDeadline | ExitDeadline;

/** The next time `check()` can say something new, and the rule that owns it. */
export interface NextDeadline {
  at: number;
  rule: DeadlineRule;
}

/** Start-up: nothing printed and nothing running, silence gets `firstOutputMs`. */
export function firstOutputRule(
  state: MonitorState,
  thresholds: Thresholds,
): HangDeadline | undefined {
  if (state.lastEventType !== undefined) return undefined;
  if (state.openCalls.size > 0 || state.backgroundWork.size > 0) return undefined;
  const anchor = quietAnchor(state);
  const span = thresholds.firstOutputMs;
  return { kind: "idle", rule: "first-output", at: anchor + span, anchor, span };
}

/**
 * The base rule, for when no other applies: silence, measured from the last signal (or from
 * the last time the tree was seen working), past `idleTimeoutMs`.
 */
export function idleRule(state: MonitorState, thresholds: Thresholds): HangDeadline {
  const anchor = quietAnchor(state);
  const span = thresholds.idleTimeoutMs;
  return { kind: "idle", rule: "idle", at: anchor + span, anchor, span };
}

/**
 * Tools running: every open call must be past its own deadline, and the stream must have been
 * silent for the grace period (an agent still printing is not hung, whatever its stale calls
 * say). The span is the one that ends last.
 */
export function toolRule(state: MonitorState, thresholds: Thresholds): HangDeadline | undefined {
  const latest = lastToExpire(state);
  if (!latest) return undefined;
  const callsExpireAt = latest.startedAt + latest.limitMs;
  const anchor = quietAnchor(state);
  const silenceAt = anchor + thresholds.toolGraceMs;
  return silenceAt > callsExpireAt
    ? { kind: "tool", rule: "tool", at: silenceAt, anchor, span: thresholds.toolGraceMs }
    : {
        kind: "tool",
        rule: "tool",
        at: callsExpireAt,
        anchor: latest.startedAt,
        span: latest.limitMs,
      };
}

/** No tool running but background work alive: a wait of its own, with its own budget. */
export function backgroundWaitRule(
  state: MonitorState,
  thresholds: Thresholds,
): HangDeadline | undefined {
  if (state.openCalls.size > 0 || state.backgroundWork.size === 0) return undefined;
  const span = thresholds.backgroundWaitMs;
  return {
    kind: "background",
    rule: "background-wait",
    at: state.lastAt + span,
    anchor: state.lastAt,
    span,
  };
}

/** With liveness on: silence past `maxQuietMs` is a hang however busy the tree (caps idle and tool). */
export function maxQuietRule(state: MonitorState, thresholds: Thresholds): number | undefined {
  return thresholds.liveness ? state.lastAt + thresholds.liveness.maxQuietMs : undefined;
}

/** After the result, liveness off: the process gets `exitGraceMs` to exit. */
export function lingerRule(state: MonitorState, thresholds: Thresholds): ExitDeadline | undefined {
  if (state.doneAt === undefined || thresholds.liveness) return undefined;
  const done = state.doneAt;
  const span = thresholds.exitGraceMs;
  return { kind: "linger", rule: "linger", at: done + span, anchor: done, span };
}

/**
 * After the result, liveness on: events after the result and a tree seen working give the
 * exit grace again from then, up to `maxDrainRule`.
 */
export function drainRule(state: MonitorState, thresholds: Thresholds): ExitDeadline | undefined {
  const capAt = maxDrainRule(state, thresholds);
  if (state.doneAt === undefined || capAt === undefined) return undefined;
  const done = state.doneAt;
  const anchor = Math.max(done, state.lastAt, state.samples.workingAt ?? done);
  const span = thresholds.exitGraceMs;
  return { kind: "linger", rule: "drain", at: Math.min(anchor + span, capAt), anchor, span };
}

/** With liveness on, after the result: however busy the tree, it exits by this time. */
export function maxDrainRule(state: MonitorState, thresholds: Thresholds): number | undefined {
  if (state.doneAt === undefined || !thresholds.liveness) return undefined;
  return state.doneAt + Math.max(thresholds.exitGraceMs, thresholds.liveness.maxDrainMs);
}

/** The wall-clock budget of the turn, `maxTurnMs` after its start. */
export function budgetRule(state: MonitorState, thresholds: Thresholds): number | undefined {
  return thresholds.maxTurnMs === undefined ? undefined : state.startedAt + thresholds.maxTurnMs;
}

/**
 * A "stalling?" warning at `warnFraction` of the span of the hang deadline, once per deadline;
 * none while the tree was seen working in this silence (it is not stalling).
 */
export function softWarningRule(
  deadline: HangDeadline,
  state: MonitorState,
  thresholds: Thresholds,
): number | undefined {
  if (thresholds.warnFraction === 0 || state.warnedFor === deadline.at) return undefined;
  const { workingAt } = state.samples;
  if (deadline.kind !== "background" && workingAt !== undefined && workingAt > state.lastAt) {
    return undefined;
  }
  return deadline.anchor + deadline.span * thresholds.warnFraction;
}

/** With liveness on: a baseline sample halfway through the deadline's span, if none was taken in it. */
export function sampleRule(
  deadline: Deadline,
  state: MonitorState,
  thresholds: Thresholds,
): number | undefined {
  const { lastSampleAt } = state.samples;
  return thresholds.liveness && (lastSampleAt === undefined || lastSampleAt < deadline.anchor)
    ? deadline.anchor + deadline.span / 2
    : undefined;
}

/** The hang deadline of the turn before its result: the rule that applies, capped by max quiet. */
export function hangDeadline(state: MonitorState, thresholds: Thresholds): HangDeadline {
  const deadline =
    toolRule(state, thresholds) ??
    backgroundWaitRule(state, thresholds) ??
    firstOutputRule(state, thresholds) ??
    idleRule(state, thresholds);
  if (deadline.kind === "background") return deadline;
  const at = Math.min(deadline.at, maxQuietRule(state, thresholds) ?? Number.POSITIVE_INFINITY);
  return at === deadline.at ? deadline : { ...deadline, rule: "max-quiet", at };
}

/** The exit deadline once the result arrived, or undefined before. */
export function exitDeadline(
  state: MonitorState,
  thresholds: Thresholds,
): ExitDeadline | undefined {
  return lingerRule(state, thresholds) ?? drainRule(state, thresholds);
}

const earlier = (next: NextDeadline, at: number | undefined, rule: DeadlineRule): NextDeadline =>
  at !== undefined && at < next.at ? { at, rule } : next;

/**
 * The time at which `check()` can next return something new (a verdict, a soft warning or a
 * request for a sample), and the rule that owns it; undefined once nothing can change.
 */
export function nextDeadline(
  state: MonitorState,
  thresholds: Thresholds,
): NextDeadline | undefined {
  if (state.exited) return undefined;
  if (state.pausedAt !== undefined) {
    // While paused only the budget runs.
    const budgetAt = budgetRule(state, thresholds);
    return budgetAt === undefined ? undefined : { at: budgetAt, rule: "budget" };
  }
  const deadline: Deadline = exitDeadline(state, thresholds) ?? hangDeadline(state, thresholds);
  let next: NextDeadline = { at: deadline.at, rule: deadline.rule };
  if (deadline.kind !== "linger") {
    // Before the result, the budget or the soft warning may come first.
    next = earlier(next, budgetRule(state, thresholds), "budget");
    next = earlier(next, softWarningRule(deadline, state, thresholds), "soft-warning");
  }
  next = earlier(next, sampleRule(deadline, state, thresholds), "sample");
  // Waiting for a second sample: the deadline itself has passed.
  const { retryAt } = state.samples;
  if (retryAt !== undefined && next.at <= retryAt) next = { at: retryAt, rule: "sample-retry" };
  return next;
}

/** When a hang, linger or budget verdict would fire if nothing happens. */
export function verdictAt(state: MonitorState, thresholds: Thresholds): number {
  const exit = exitDeadline(state, thresholds);
  if (exit) return exit.at;
  return Math.min(
    hangDeadline(state, thresholds).at,
    budgetRule(state, thresholds) ?? Number.POSITIVE_INFINITY,
  );
}

/**
 * The silence a sample of the tree is judged against: where it started (the baseline must be
 * later) and when its verdict is due.
 */
export function judgedSilence(
  state: MonitorState,
  thresholds: Thresholds,
): { anchor: number; due: number } {
  const exit = exitDeadline(state, thresholds);
  if (exit) return { anchor: exit.anchor, due: exit.at };
  return { anchor: quietAnchor(state), due: hangDeadline(state, thresholds).at };
}

import { formatBytes, formatDuration } from "@cursor-wrap/wording";
import {
  backgroundDetails,
  type MonitorState,
  type Oddity,
  openCallDetails,
  quietAnchor,
} from "./monitor-state.js";
import type { Thresholds } from "./thresholds.js";
import type {
  BackgroundDetail,
  LivenessReport,
  MonitorWarning,
  OpenCallDetail,
  Reason,
  ReasonKind,
  SoftWarning,
  Verdict,
} from "./types.js";

// The monitor's wording: every message it returns is written here, from the state and the
// thresholds, and nothing here decides anything.

/** Open calls a reason or a warning names; the rest are counted (`; and 5 more`). */
export const CALLS_LISTED = 10;

/** `shell "sleep 5" 40.0s of 40.0s; mcp 2m of 10m 30s`; `…; and 5 more` when `total` is more. */
export function describeCalls(calls: readonly OpenCallDetail[], total = calls.length): string {
  const listed = calls
    .map((call) => {
      const what = call.label ? `${call.kind} ${JSON.stringify(call.label)}` : call.kind;
      return `${what} ${formatDuration(call.elapsedMs)} of ${formatDuration(call.limitMs)}`;
    })
    .join("; ");
  return total > calls.length ? `${listed}; and ${total - calls.length} more` : listed;
}

/** `"npm run dev" (pid 42), bg-2`; `…, and 5 more` when `total` is more. */
export function describeBackground(
  details: readonly BackgroundDetail[],
  total = details.length,
): string {
  const listed = details
    .map((work) => {
      const what = work.label ? JSON.stringify(work.label) : work.id;
      return `${what}${work.pid !== undefined ? ` (pid ${work.pid})` : ""}`;
    })
    .join(", ");
  return total > details.length ? `${listed}, and ${total - details.length} more` : listed;
}

/** What a sample over `spanMs` showed, for reasons and records. */
export function livenessReport(
  working: boolean,
  spanMs: number,
  cpuMs: number,
  ioBytes: number | undefined,
  quietMs: number,
  unmeasured = false,
): LivenessReport {
  const moved = ioBytes === undefined ? "" : `, ${formatBytes(ioBytes)} moved`;
  const report: LivenessReport = {
    working,
    spanMs: Math.round(spanMs),
    cpuMs: Math.round(cpuMs),
    quietMs: Math.round(quietMs),
    message: unmeasured
      ? `quiet for ${formatDuration(quietMs)}; the agent's processes could not be looked at: taken as parked`
      : `quiet for ${formatDuration(quietMs)}, ${working ? "working" : "parked"}: ${formatDuration(cpuMs)} CPU${moved} in ${formatDuration(spanMs)}`,
  };
  if (ioBytes !== undefined) report.ioBytes = Math.round(ioBytes);
  if (unmeasured) report.unmeasured = true;
  return report;
}

/** What the tree was doing, for a verdict's message: parked, or working past a cap. */
export function livenessNote(state: MonitorState, thresholds: Thresholds, now: number): string {
  const { liveness } = thresholds;
  if (!liveness) return "";
  const { decision } = state.samples;
  if (decision && decision.at >= quietAnchor(state) && !decision.report.working) {
    if (decision.report.unmeasured) {
      return "; the agent's processes could not be looked at (taken as parked)";
    }
    const { cpuMs, ioBytes, spanMs } = decision.report;
    const moved = ioBytes === undefined ? "" : `, ${formatBytes(ioBytes)} moved`;
    return `; the agent's processes were idle too (${formatDuration(cpuMs)} CPU${moved} in ${formatDuration(spanMs)})`;
  }
  if (state.doneAt !== undefined)
    return `; still busy past the ${formatDuration(liveness.maxDrainMs)} allowed for draining`;
  if (now >= state.lastAt + liveness.maxQuietMs) {
    return `; busy but silent past the ${formatDuration(liveness.maxQuietMs)} allowed for quiet work`;
  }
  return "";
}

/** What a reason's message is written from. */
interface ReasonContext {
  state: MonitorState;
  thresholds: Thresholds;
  now: number;
  verdict: Verdict;
  idleMs: number;
  openCalls: OpenCallDetail[];
  /** ` (last event: …)`, or ` (no output yet)`. */
  last: string;
}

const plural = (count: number, one: string, many: string): string => (count === 1 ? one : many);

/** The one-line message of a reason of each kind. */
const MESSAGES: { readonly [Kind in ReasonKind]: (context: ReasonContext) => string } = {
  idle: ({ state, thresholds, now, idleMs, last }) =>
    `no output for ${formatDuration(idleMs)} with no tool running${last}${livenessNote(state, thresholds, now)}`,
  tool: ({ state, thresholds, now, idleMs, openCalls, last }) =>
    `${state.openCalls.size} tool call${plural(state.openCalls.size, "", "s")} past ${plural(
      state.openCalls.size,
      "its deadline",
      "their deadlines",
    )}, silent for ${formatDuration(idleMs)}: ${describeCalls(openCalls, state.openCalls.size)}${last}${livenessNote(state, thresholds, now)}`,
  background: ({ state, thresholds, now, idleMs, last }) =>
    `waited ${formatDuration(idleMs)} on background work, past its budget of ${formatDuration(
      thresholds.backgroundWaitMs,
    )}: ${describeBackground(backgroundDetails(state, now, CALLS_LISTED), state.backgroundWork.size)}${last}`,
  linger: ({ state, thresholds, now }) =>
    `process still running ${formatDuration(now - (state.doneAt ?? now))} after its result${livenessNote(state, thresholds, now)}`,
  budget: ({ state, thresholds, now, last }) =>
    `turn ran ${formatDuration(now - state.startedAt)}, past its budget of ${formatDuration(
      thresholds.maxTurnMs ?? 0,
    )}${last}`,
  none: ({ state, verdict, idleMs, openCalls, last }) => {
    if (verdict === "waiting")
      return `waiting on ${describeCalls(openCalls, state.openCalls.size)}`;
    if (state.exited) return "process exited";
    if (state.doneAt !== undefined) return "turn completed";
    return `quiet for ${formatDuration(idleMs)}${last}`;
  },
};

/** The structured explanation of a verdict of `kind` at `now` (R-MON6). */
export function reasonFor(
  kind: ReasonKind,
  verdict: Verdict,
  state: MonitorState,
  thresholds: Thresholds,
  now: number,
): Reason {
  const idleMs = Math.round(now - state.lastAt);
  const openCalls = openCallDetails(state, now, CALLS_LISTED);
  const last = state.lastEventType ? ` (last event: ${state.lastEventType})` : " (no output yet)";
  const message = MESSAGES[kind]({ state, thresholds, now, verdict, idleMs, openCalls, last });
  const openCallCount = state.openCalls.size;
  const reason: Reason = { kind, idleMs, openCallCount, openCalls, message };
  if (kind === "background") reason.background = backgroundDetails(state, now, CALLS_LISTED);
  const { decision } = state.samples;
  if (decision && (kind === "idle" || kind === "tool" || kind === "linger")) {
    reason.liveness = decision.report;
  }
  if (state.lastEventType !== undefined) reason.lastEventType = state.lastEventType;
  if (state.sessionId !== undefined) reason.sessionId = state.sessionId;
  return reason;
}

/** "Quiet but healthy, or stalling?": the notice before a verdict of `kind` due at `firesAt`. */
export function softWarningFor(
  kind: SoftWarning["kind"],
  firesAt: number,
  state: MonitorState,
  now: number,
): SoftWarning {
  const firesIn = formatDuration(firesAt - now);
  let message: string;
  switch (kind) {
    case "idle":
      message = `quiet for ${formatDuration(now - state.lastAt)}; hang in ${firesIn} if nothing arrives`;
      break;
    case "tool":
      message = `tool call${plural(state.openCalls.size, "", "s")} running long; hang in ${firesIn}: ${describeCalls(
        openCallDetails(state, now, CALLS_LISTED),
        state.openCalls.size,
      )}`;
      break;
    case "background":
      message = `waiting on background work for ${formatDuration(now - state.lastAt)}: ${describeBackground(
        backgroundDetails(state, now, CALLS_LISTED),
        state.backgroundWork.size,
      )}; verdict in ${firesIn} if it goes on`;
      break;
    default: {
      const unreachable: never = kind;
      return unreachable;
    }
  }
  return { kind, firesInMs: Math.round(firesAt - now), message };
}

/** The words for an oddity in the signal sequence; `lastEventType` names what came after the result. */
export function noticeFor(oddity: Oddity, lastEventType: string | undefined): MonitorWarning {
  switch (oddity.code) {
    case "after-done":
      return { code: oddity.code, message: `${lastEventType} after the result; ignored` };
    case "duplicate-start":
      return { code: oddity.code, id: oddity.id, message: "tool call started twice" };
    case "unmatched-end":
      return { code: oddity.code, id: oddity.id, message: "tool call ended that never started" };
    default: {
      const unreachable: never = oddity.code;
      return unreachable;
    }
  }
}

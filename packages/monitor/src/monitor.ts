import { judgedSilence, nextDeadline, verdictAt } from "./deadline-rules.js";
import { takeSample } from "./liveness.js";
import {
  applySignal,
  backgroundDetails,
  createMonitorState,
  dropEndedBackgroundWork,
  type MonitorState,
  openCallDetails,
  pauseOutput,
  phaseOf,
  quietButWorking,
  resumeOutput,
} from "./monitor-state.js";
import { noticeFor, reasonFor, softWarningFor } from "./reasons.js";
import { resolveThresholds, type Thresholds } from "./thresholds.js";
import type {
  CheckResult,
  LivenessSignal,
  Monitor,
  MonitorOptions,
  MonitorSnapshot,
} from "./types.js";
import { assess, dueSoftWarning } from "./verdict.js";

// The monitor's defaults are declared with the thresholds they fill in.
export {
  DEFAULT_BACKGROUND_WAIT_MS,
  DEFAULT_LIVENESS,
  DEFAULT_THRESHOLDS,
  DEFAULT_TOOL_TIMEOUTS,
} from "./thresholds.js";

const defaultClock = (): number => performance.now();

// The monitor in parts: its state (`monitor-state.ts`), one function per deadline rule
// (`deadline-rules.ts`), the samples of the process tree (`liveness.ts`), the verdict
// (`verdict.ts`) and the wording (`reasons.ts`). This file only wires them to the API.

/**
 * Create the hang state machine (R-MON1 to R-MON10). Feed it signals with `observe()`, ask
 * `nextDeadline()` when to look again, and `check()` at that time. It keeps no timers.
 */
export function createMonitor(options: MonitorOptions = {}): Monitor {
  const clock = options.now ?? defaultClock;
  const thresholds = resolveThresholds(options);
  const state = createMonitorState(options.startedAt ?? clock());
  return {
    observe(signal, now = clock()) {
      if (signal.type === "liveness") {
        // A sample of the tree is not output: silence goes on.
        if (!state.exited) observeSample(state, thresholds, signal, now);
        return undefined;
      }
      const oddity = applySignal(state, thresholds, signal, now);
      return oddity && noticeFor(oddity, state.lastEventType);
    },
    pause: (now = clock()) => pauseOutput(state, now),
    resume: (now = clock()) => resumeOutput(state, now),
    check: (now = clock()) => checkAt(state, thresholds, now),
    nextDeadline: () => nextDeadline(state, thresholds)?.at,
    snapshot: (now = clock()) => snapshotAt(state, thresholds, now),
  };
}

/** A sample of the tree: it may end background work, and it is a baseline or a decision. */
function observeSample(
  state: MonitorState,
  thresholds: Thresholds,
  signal: LivenessSignal,
  now: number,
): void {
  if (signal.pids) dropEndedBackgroundWork(state, signal.pids);
  takeSample(state.samples, signal, now, {
    liveness: thresholds.liveness,
    idleTimeoutMs: thresholds.idleTimeoutMs,
    lastAt: state.lastAt,
    ...judgedSilence(state, thresholds),
  });
}

function checkAt(state: MonitorState, thresholds: Thresholds, now: number): CheckResult {
  const assessment = assess(state, thresholds, now);
  const { verdict, kind, probe } = assessment;
  const result: CheckResult = { verdict, reason: reasonFor(kind, verdict, state, thresholds, now) };
  if (probe) result.probe = true;
  const { decision } = state.samples;
  if (decision?.at === now && decision.report.working) result.working = decision.report;
  const warned = dueSoftWarning(assessment, state, thresholds, now);
  if (warned) {
    state.warnedFor = warned.at;
    result.warning = softWarningFor(warned.kind, warned.at, state, now);
  }
  return result;
}

function snapshotAt(state: MonitorState, thresholds: Thresholds, now: number): MonitorSnapshot {
  const snapshot: MonitorSnapshot = {
    phase: phaseOf(state),
    verdict: assess(state, thresholds, now).verdict,
    elapsedMs: Math.round(now - state.startedAt),
    silentMs: Math.round(now - state.lastAt),
    openCalls: openCallDetails(state, now),
    background: backgroundDetails(state, now),
  };
  const working = quietButWorking(state);
  if (working) snapshot.quietButWorking = working;
  if (state.sessionId !== undefined) snapshot.sessionId = state.sessionId;
  if (state.lastEventType !== undefined) snapshot.lastEventType = state.lastEventType;
  const next = nextDeadline(state, thresholds);
  if (next !== undefined) snapshot.nextDeadlineInMs = Math.max(0, Math.round(next.at - now));
  if (!state.exited) {
    snapshot.verdictInMs = Math.max(0, Math.round(verdictAt(state, thresholds) - now));
  }
  return snapshot;
}

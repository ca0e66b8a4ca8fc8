import {
  budgetRule,
  type ExitDeadline,
  exitDeadline,
  type HangDeadline,
  hangDeadline,
  maxDrainRule,
  maxQuietRule,
  sampleRule,
  softWarningRule,
} from "./deadline-rules.js";
import { gate, wantsBackgroundSample } from "./liveness.js";
import type { MonitorState } from "./monitor-state.js";
import type { Thresholds } from "./thresholds.js";
import type { ReasonKind, Verdict } from "./types.js";

/** The verdict at a time, what its reason is about, and whether a sample of the tree is wanted. */
export interface Assessment {
  verdict: Verdict;
  kind: ReasonKind;
  /** The hang deadline it was judged against (before the result, not paused). */
  deadline?: HangDeadline;
  /** With liveness on: sample the tree now, then check again. */
  probe?: boolean;
}

/** Nothing due: `waiting` while tools run, else `ok`. */
const calm = (state: MonitorState): Verdict => (state.openCalls.size > 0 ? "waiting" : "ok");

/** The verdict at `now`. */
export function assess(state: MonitorState, thresholds: Thresholds, now: number): Assessment {
  if (state.exited) return { verdict: "ok", kind: "none" };
  if (state.pausedAt !== undefined) return assessPaused(state, thresholds, now);
  const exit = exitDeadline(state, thresholds);
  if (exit) return assessExit(exit, state, thresholds, now);
  return assessHang(hangDeadline(state, thresholds), state, thresholds, now);
}

/** Silence is not the agent's while its output waits on us: only the budget runs on. */
function assessPaused(state: MonitorState, thresholds: Thresholds, now: number): Assessment {
  const budgetAt = budgetRule(state, thresholds);
  return budgetAt !== undefined && now >= budgetAt
    ? { verdict: "budget", kind: "budget" }
    : { verdict: calm(state), kind: "none" };
}

/** After the result: a linger once the exit deadline passed (and a sample found the tree parked). */
function assessExit(
  exit: ExitDeadline,
  state: MonitorState,
  thresholds: Thresholds,
  now: number,
): Assessment {
  if (now >= exit.at) {
    const capAt = maxDrainRule(state, thresholds);
    const step = gate(exit, capAt, now, state.samples, thresholds.liveness);
    if (step === "fire") return { verdict: "linger", kind: "linger" };
    return { verdict: "ok", kind: "none", probe: step === "probe" };
  }
  const sampleAt = sampleRule(exit, state, thresholds);
  return { verdict: "ok", kind: "none", probe: sampleAt !== undefined && now >= sampleAt };
}

/** Before the result: a hang or the budget, whichever was due first; else calm. */
function assessHang(
  deadline: HangDeadline,
  state: MonitorState,
  thresholds: Thresholds,
  now: number,
): Assessment {
  const budgetAt = budgetRule(state, thresholds);
  const hangDue = now >= deadline.at;
  const budgetDue = budgetAt !== undefined && now >= budgetAt;
  const verdict = calm(state);
  if (hangDue && (!budgetDue || deadline.at <= budgetAt!)) {
    if (deadline.kind === "background") {
      if (wantsBackgroundSample(deadline, state.samples, thresholds.liveness)) {
        return { verdict, kind: "none", deadline, probe: true };
      }
      return { verdict: "hang", kind: "background", deadline };
    }
    const capAt = maxQuietRule(state, thresholds);
    const step = gate(deadline, capAt, now, state.samples, thresholds.liveness);
    if (step === "fire") return { verdict: "hang", kind: deadline.kind, deadline };
    if (!budgetDue) return { verdict, kind: "none", deadline, probe: step === "probe" };
  }
  if (budgetDue) return { verdict: "budget", kind: "budget", deadline };
  const sampleAt = sampleRule(deadline, state, thresholds);
  return { verdict, kind: "none", deadline, probe: sampleAt !== undefined && now >= sampleAt };
}

/**
 * The hang deadline whose soft warning is due at `now`, if one is: the verdict is still calm,
 * the warning time has come and the verdict's has not.
 */
export function dueSoftWarning(
  assessment: Assessment,
  state: MonitorState,
  thresholds: Thresholds,
  now: number,
): HangDeadline | undefined {
  const { verdict, deadline } = assessment;
  if ((verdict !== "ok" && verdict !== "waiting") || !deadline || state.doneAt !== undefined) {
    return undefined;
  }
  const at = softWarningRule(deadline, state, thresholds);
  return at !== undefined && now >= at && now < deadline.at ? deadline : undefined;
}

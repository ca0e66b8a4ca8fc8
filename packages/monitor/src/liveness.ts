import type { Deadline, HangDeadline } from "./deadline-rules.js";
import { finite, type SampleState } from "./monitor-state.js";
import { livenessReport } from "./reasons.js";
import type { LivenessThresholds } from "./thresholds.js";
import type { LivenessSignal } from "./types.js";

// Quiet but working (R-MON11): the samples of the process tree, whether one shows the tree
// working, and whether a due verdict may fire or must wait for a sample first.

/** A sample that could not decide (no baseline in this silence) is followed by one after this, ms at most. */
export const RETRY_SAMPLE_MS = 5_000;

/**
 * CPU time is counted in whole clock ticks (Linux's /proc and `ps` both count in 10 ms): a
 * sample can show up to one tick less than each of the tree's processes used.
 */
const CPU_TICK_MS = 10;

/** The tree made progress over `spanMs`: enough CPU time, or enough bytes moved per second. */
export function isWorking(
  cpuMs: number,
  ioBytes: number | undefined,
  spanMs: number,
  liveness: LivenessThresholds,
): boolean {
  return (
    cpuMs >= spanMs * liveness.minCpuFraction ||
    (ioBytes !== undefined && (ioBytes * 1_000) / spanMs >= liveness.minIoBytesPerSecond)
  );
}

/**
 * How long a span must be before a tree that used `cpuMs` (counted in whole ticks over
 * `processes` processes) can be called parked: even the ticks the count may have missed would
 * not have made it working. Infinite when no span is long enough.
 */
function spanToTellParked(cpuMs: number, processes: number, liveness: LivenessThresholds): number {
  return (cpuMs + CPU_TICK_MS * processes) / liveness.minCpuFraction;
}

/** What a sample is judged against (see `judgedSilence`) and what it needs from the monitor. */
export interface SampleContext {
  liveness: LivenessThresholds | undefined;
  idleTimeoutMs: number;
  /** The last signal. */
  lastAt: number;
  /** Where the silence under judgement started: a baseline must be later. */
  anchor: number;
  /** When its verdict is due. */
  due: number;
}

/**
 * Take in a sample of the tree at `now`: a baseline (the first in this silence), or a decision
 * on whether the tree is working since the previous sample.
 *
 * A tree is called parked only when the span shows it: CPU time comes in whole ticks, so over
 * a short span a busy tree that had little of a core (a loaded machine) can show less than the
 * threshold, one tick short. Such a span decides nothing: the next sample, once the span is
 * long enough to tell, judges it together with this one.
 */
export function takeSample(
  samples: SampleState,
  signal: LivenessSignal,
  now: number,
  context: SampleContext,
): void {
  const previous = samples.lastSampleAt;
  const { undecided } = samples;
  samples.lastSampleAt = now;
  samples.retryAt = undefined;
  samples.undecided = undefined;
  const { liveness } = context;
  if (!liveness) return;
  if (previous === undefined || previous < context.anchor || now <= previous) {
    // No baseline in this silence: this sample is one. If a verdict is due, decide soon.
    if (now >= context.due) {
      samples.retryAt = now + Math.min(RETRY_SAMPLE_MS, Math.max(1, context.idleTimeoutMs / 2));
    }
    return;
  }
  const cpuOfSample = finite(signal.cpuMs) ?? 0;
  const ioOfSample = finite(signal.ioBytes);
  const processesOfSample = Math.max(1, signal.pids?.length ?? 1);
  // An undecided span just before this one (it began after the silence did) is judged with it.
  const joined = undecided !== undefined && undecided.since >= context.anchor;
  const since = joined ? undecided.since : previous;
  let cpuMs = cpuOfSample;
  let ioBytes = ioOfSample;
  let processes = processesOfSample;
  let unmeasured = signal.unmeasured === true;
  if (joined) {
    unmeasured &&= undecided.unmeasured;
    cpuMs += undecided.cpuMs;
    ioBytes =
      ioBytes === undefined || undecided.ioBytes === undefined
        ? undefined
        : ioBytes + undecided.ioBytes;
    processes = Math.max(processes, undecided.processes);
  }
  const spanMs = now - since;
  const working = isWorking(cpuMs, ioBytes, spanMs, liveness);
  const needed = spanToTellParked(cpuMs, processes, liveness);
  if (!working && spanMs <= needed) {
    samples.undecided = { since, cpuMs, ioBytes, processes, unmeasured };
    if (now >= context.due) {
      // Sample again once the span can tell (sooner if that is far: the tree may change).
      const tellAt = Number.isFinite(needed) ? Math.floor(since + needed) + 1 : Infinity;
      samples.retryAt = Math.max(now + 1, Math.min(tellAt, now + RETRY_SAMPLE_MS));
    }
    return;
  }
  const report = livenessReport(working, spanMs, cpuMs, ioBytes, now - context.lastAt, unmeasured);
  samples.decision = { at: now, report };
  if (working) {
    samples.workingAt = now;
    samples.lastWorking = report;
  }
}

/** What to do about a verdict that is due: fire it, ask for a sample, or wait for the one asked for. */
export type GateStep = "fire" | "probe" | "wait";

/**
 * A verdict is due at `deadline.at`: with liveness on, it fires only on a sample that found
 * the tree parked (or at `capAt`, however busy); until there is one, ask for a sample.
 */
export function gate(
  deadline: Deadline,
  capAt: number | undefined,
  now: number,
  samples: SampleState,
  liveness: LivenessThresholds | undefined,
): GateStep {
  if (!liveness || (capAt !== undefined && now >= capAt)) return "fire";
  const { decision, retryAt } = samples;
  if (decision && decision.at >= deadline.at && !decision.report.working) return "fire";
  if (retryAt !== undefined && now < retryAt) return "wait";
  return "probe";
}

/**
 * With liveness on, a due background wait first asks for one sample: background work whose
 * process is gone no longer holds the wait.
 */
export function wantsBackgroundSample(
  deadline: HangDeadline,
  samples: SampleState,
  liveness: LivenessThresholds | undefined,
): boolean {
  return (
    liveness !== undefined &&
    (samples.lastSampleAt === undefined || samples.lastSampleAt < deadline.at)
  );
}

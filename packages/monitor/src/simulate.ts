import { createMonitor } from "./monitor.js";
import type {
  LivenessReport,
  MonitorOptions,
  MonitorSignal,
  MonitorWarning,
  Reason,
  SoftWarning,
  Verdict,
} from "./types.js";

/** A signal and the monotonic time (ms) it arrived at. */
export interface TimedSignal {
  at: number;
  signal: MonitorSignal;
}

/** Something the monitor said during a simulation, at the simulated time `at`. */
export type SimulationEntry =
  | { type: "notice"; at: number; warning: MonitorWarning }
  | { type: "warning"; at: number; warning: SoftWarning }
  /** With liveness on: a sample found the quiet agent working, so no verdict. */
  | { type: "working"; at: number; report: LivenessReport }
  /** With liveness on: a sample was wanted and none was recorded near this time; taken as parked. */
  | { type: "unsampled"; at: number }
  | { type: "verdict"; at: number; verdict: Exclude<Verdict, "ok" | "waiting">; reason: Reason };

/** How close to the time a sample is wanted a recorded one must be to stand in for it, ms. */
const SAMPLE_TOLERANCE_MS = 1_000;

/** Options for {@link simulate}: the monitor's thresholds plus how long to keep the clock running. */
export interface SimulateOptions extends Omit<MonitorOptions, "now"> {
  /**
   * Keep the clock running after the last signal until this time (ms, same clock as the
   * signals). `Infinity` asks "what if the stream stayed silent from here on". Default: the
   * time of the last signal.
   */
  until?: number;
}

/** Result of {@link simulate}. */
export interface SimulationResult {
  /** Notices, soft warnings and at most one verdict, in time order. */
  entries: SimulationEntry[];
  /** The first hang, linger or budget verdict, which is where a supervisor would kill. */
  verdict?: Extract<SimulationEntry, { type: "verdict" }>;
}

const TERMINAL: ReadonlySet<Verdict> = new Set(["hang", "linger", "budget"]);

/**
 * Replay timed signals through a monitor on a simulated clock and report exactly when each
 * soft warning and verdict would have fired. Stops at the first verdict, as a supervisor would.
 * Use it to tune thresholds on recorded streams.
 *
 * With `liveness` on, recorded `liveness` signals (samples of the process tree) are the
 * monitor's answers when it asks for a sample: the recorded sample within a second of that
 * time is used; with none, the agent is taken as parked and an `unsampled` entry says so.
 */
export function simulate(
  signals: Iterable<TimedSignal>,
  options: SimulateOptions = {},
): SimulationResult {
  const timed = [...signals];
  const used = new Set<number>();
  /** The recorded sample to stand in for one wanted at `at`, if there is one. */
  const recordedSample = (at: number): number | undefined => {
    for (let index = 0; index < timed.length; index += 1) {
      const item = timed[index]!;
      if (item.at > at + SAMPLE_TOLERANCE_MS) break;
      if (
        item.signal.type === "liveness" &&
        !used.has(index) &&
        item.at >= at - SAMPLE_TOLERANCE_MS
      ) {
        return index;
      }
    }
    return undefined;
  };
  const startedAt = options.startedAt ?? timed[0]?.at ?? 0;
  const until = options.until ?? timed.at(-1)?.at ?? startedAt;
  let current = startedAt;
  const monitor = createMonitor({ ...options, startedAt, now: () => current });
  const entries: SimulationEntry[] = [];

  // Run every check the monitor asks for up to `to`. Returns the verdict entry if one fired.
  const advance = (to: number): Extract<SimulationEntry, { type: "verdict" }> | undefined => {
    for (;;) {
      const deadline = monitor.nextDeadline();
      if (deadline === undefined || deadline > to) return undefined;
      current = Math.max(current, deadline);
      const first = monitor.check(current);
      let result = first;
      if (result.probe) {
        const index = recordedSample(current);
        if (index === undefined) entries.push({ type: "unsampled", at: current });
        else used.add(index);
        const sample =
          index === undefined
            ? { type: "liveness" as const, cpuMs: 0, unmeasured: true }
            : timed[index]!.signal;
        monitor.observe(sample, current);
        result = monitor.check(current);
        // A soft warning is given once: the one the first look found is kept, as a live run keeps it.
        if (first.warning && !result.warning) result = { ...result, warning: first.warning };
        if (result.working) entries.push({ type: "working", at: current, report: result.working });
      }
      if (result.warning) entries.push({ type: "warning", at: current, warning: result.warning });
      if (TERMINAL.has(result.verdict)) {
        const entry = {
          type: "verdict" as const,
          at: current,
          verdict: result.verdict as Exclude<Verdict, "ok" | "waiting">,
          reason: result.reason,
        };
        entries.push(entry);
        return entry;
      }
      const next = monitor.nextDeadline();
      if (next !== undefined && next <= current) return undefined; // no progress possible
    }
  };

  for (const { at, signal } of timed) {
    const verdict = advance(at);
    if (verdict) return { entries, verdict };
    // Samples answer the monitor's probes (above); nobody asked for this one.
    if (signal.type === "liveness") continue;
    current = Math.max(current, at);
    const warning = monitor.observe(signal, current);
    if (warning) entries.push({ type: "notice", at: current, warning });
  }
  const verdict = advance(until);
  return verdict ? { entries, verdict } : { entries };
}

import { createMonitor } from "./monitor.js";
import type {
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
  | { type: "verdict"; at: number; verdict: Exclude<Verdict, "ok" | "waiting">; reason: Reason };

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
 */
export function simulate(
  signals: Iterable<TimedSignal>,
  options: SimulateOptions = {},
): SimulationResult {
  const timed = [...signals];
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
      const result = monitor.check(current);
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
    current = Math.max(current, at);
    const warning = monitor.observe(signal, current);
    if (warning) entries.push({ type: "notice", at: current, warning });
  }
  const verdict = advance(until);
  return verdict ? { entries, verdict } : { entries };
}

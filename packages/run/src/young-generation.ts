import { PerformanceObserver } from "node:perf_hooks";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";

/** What {@link capYoungGeneration} needs from V8 (injected by tests). */
export interface YoungGenerationControl {
  /** The young generation's size now, bytes, as V8 reports its `new_space`. */
  size(): number;
  /** How much V8 multiplies the young generation by each time it grows it. */
  setGrowthFactor(factor: number): void;
  /** Calls `after` after each garbage collection V8 reports; returns a stop function. */
  afterEachCollection(after: () => void): () => void;
}

/**
 * Growth factor while the young generation may still take its one step: V8's first semi-space
 * (1 MiB) becomes 4 MiB at once, a young generation of 8 MiB as V8 reports it.
 */
const FIRST_STEP_FACTOR = 4;

/** The young generation V8 reports after that step, bytes: where it stops. */
const CAP_BYTES = 8 * 1024 * 1024;

/**
 * Lets V8's young generation grow once, then no more (P5, BENCHMARKS.md).
 *
 * While output streams through, V8 doubles its young generation up to 32 MiB (two 16 MiB
 * semi-spaces), nearly all of it garbage between collections: on the real-shaped stream a
 * fifth of the wrapper's peak RSS. Its maximum is fixed when the process starts, but the
 * growth factor (`--semi-space-growth-factor`) is a flag V8 reads each time it would grow the
 * space: it is set to take the first step at once (1 → 4 MiB semi-spaces), and to 1 once that
 * step is seen (at once if the space has 8 MiB already), after the first collection that shows it. Seeing it costs nothing per chunk
 * of output: Node reports each collection as a `gc` performance entry, and the watch ends
 * with the step. Left at its first size the collections cost a sixth more CPU on that stream;
 * at 8 MiB no more than at 32 (a young generation that fits the caches is collected as
 * cheaply), for 84–86 instead of 102–111 MiB peak.
 *
 * Returns a function that stops the watch (the cap, once set, stays for the process).
 */
export function capYoungGeneration(control: YoungGenerationControl = v8Control): () => void {
  const first = control.size();
  if (first >= CAP_BYTES) {
    // Grown already (a process that streamed before): no more.
    control.setGrowthFactor(1);
    return () => undefined;
  }
  let capped = false;
  control.setGrowthFactor(FIRST_STEP_FACTOR);
  const stop = control.afterEachCollection(() => {
    if (capped || control.size() <= first) return;
    capped = true;
    control.setGrowthFactor(1);
    // Later: entries of the same batch may still be delivered after this one.
    queueMicrotask(stop);
  });
  return stop;
}

const v8Control: YoungGenerationControl = {
  size: () =>
    getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0,
  setGrowthFactor: (factor) => setFlagsFromString(`--semi-space-growth-factor=${factor}`),
  afterEachCollection(after) {
    const observer = new PerformanceObserver(after);
    observer.observe({ entryTypes: ["gc"] });
    return () => observer.disconnect();
  },
};

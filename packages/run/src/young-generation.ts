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

/** The young generation's size at which it grows no more, bytes, as V8 reports its `new_space`. */
const CAP_BYTES = 8 * 1024 * 1024;

/**
 * Lets V8's young generation grow to 8 MiB, then no more (P5, BENCHMARKS.md).
 *
 * While output streams through, V8 grows its young generation up to 32 MiB (two 16 MiB
 * semi-spaces), nearly all of it garbage between collections: on the real-shaped stream a
 * fifth of the wrapper's peak RSS. Its maximum is fixed when the process starts, but the
 * growth factor (`--semi-space-growth-factor`) is a flag V8 reads each time it would grow the
 * space: it is set to 1 after the first collection that shows the space at 8 MiB (at once if
 * it is there already). V8 grows the space only during a collection, and Node reports each
 * collection as a `gc` performance entry: the size is looked at once per collection, not per
 * chunk of output, and the watch ends with the cap. Left at its first size (1 MiB) the
 * collections cost a sixth more CPU on that stream; at 8 MiB no more than at 32 (a young
 * generation that fits the caches is collected as cheaply), for 73–88 instead of 101–111 MiB
 * peak.
 *
 * Returns a function that stops the watch (the cap, once set, stays for the process).
 */
export function capYoungGeneration(control: YoungGenerationControl = v8Control): () => void {
  if (control.size() >= CAP_BYTES) {
    control.setGrowthFactor(1);
    return () => undefined;
  }
  let capped = false;
  const stop = control.afterEachCollection(() => {
    if (capped || control.size() < CAP_BYTES) return;
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

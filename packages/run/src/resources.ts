import { readdirSync } from "node:fs";

/** What the wrapper process holds right now: for the turn records, so leaks show in the log. */
export interface ResourceStats {
  /** Active handles, requests and timers by type (`process.getActiveResourcesInfo()`). */
  active: Record<string, number>;
  /** Bytes; after a full collection when the process runs with `--expose-gc`. */
  heapUsed: number;
  rss: number;
  /** Peak resident set size of the process so far, bytes. */
  maxRss: number;
  /** Open file descriptors (Linux), undefined elsewhere. */
  fds: number | undefined;
}

/**
 * Run with `node --expose-gc` and the heap figures are taken after a full collection, so a
 * leak shows as growth rather than hiding in garbage that has not been collected yet.
 */
export function resourceStats(): ResourceStats {
  (globalThis as { gc?: () => void }).gc?.();
  const active: Record<string, number> = {};
  for (const type of process.getActiveResourcesInfo()) active[type] = (active[type] ?? 0) + 1;
  const memory = process.memoryUsage();
  let fds: number | undefined;
  try {
    fds = readdirSync("/proc/self/fd").length;
  } catch {
    fds = undefined;
  }
  return {
    active,
    heapUsed: memory.heapUsed,
    rss: memory.rss,
    maxRss: process.resourceUsage().maxRSS * 1024,
    fds,
  };
}

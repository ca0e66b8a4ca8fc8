import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

type Collect = (options?: { type?: "minor" | "major" }) => void;

/** V8's young generation as the freer sees it (injected by tests). */
export interface YoungGeneration {
  /** Its size now (both semi-spaces), bytes. */
  size(): number;
  /** Let it grow no more. */
  stopGrowth(): void;
}

/** How large the freer lets the young generation grow, bytes (V8 would take it to 32 MiB). */
const YOUNG_GENERATION_CAP = 8 * 1024 * 1024;
/** Output between two looks at the young generation's size while it may still grow, bytes. */
const YOUNG_GENERATION_CHECK_BYTES = 1024 * 1024;

/**
 * Keeps the wrapper's memory bounded however much output streams through (P5, BENCHMARKS.md).
 *
 * Agent output arrives in buffers of up to 64 KiB that are garbage once they are logged and
 * forwarded. They live outside the JavaScript heap, whose own allocations are tiny meanwhile,
 * so V8 frees them only when 64 MiB of them have piled up. A young-generation collection after
 * every `everyBytes` of output (well under a millisecond on this small heap) frees them as
 * they go.
 *
 * A large line (a multi-megabyte tool result) leaves garbage in the old generation: the joined
 * line, its decoded text and its parsed strings, up to five times its size when it is not
 * ASCII. V8 collects that space when it sees fit, which on a stream of such lines was after
 * 60–90 MiB of it. A full collection after every `largeEveryBytes` of lines of
 * {@link LARGE_LINE_BYTES} or more (1–3 ms each on this small heap) keeps it to about one
 * line's worth: on the heavy benchmark streams peak RSS went from 160–225 MiB to 95–120 MiB,
 * for about a tenth more time.
 *
 * V8 grows its young generation while output streams, doubling it up to 32 MiB (two 16 MiB
 * semi-spaces), nearly all of it garbage between collections: a third of the peak on the
 * real-shaped stream. Once it has reached `youngGenerationCap` (8 MiB, looked at after each
 * MiB of output) V8 is told to grow it no more (`--semi-space-growth-factor=1`, a flag V8
 * reads each time it would grow the space): 110 → 84 MiB peak on that stream, for no more CPU
 * (a young generation that fits the caches is collected as cheaply; BENCHMARKS.md). Left at
 * its first size (1 MiB) the collections cost a sixth more CPU, hence the growth first.
 */
export function createBufferFreer(
  options: {
    everyBytes?: number;
    largeEveryBytes?: number;
    collect?: () => Collect | undefined;
    youngGeneration?: YoungGeneration;
    youngGenerationCap?: number;
  } = {},
): (bytes: number, largeBytes?: number) => void {
  const everyBytes = options.everyBytes ?? 8 * 1024 * 1024;
  const largeEveryBytes = options.largeEveryBytes ?? 2 * 1024 * 1024;
  const obtain = options.collect ?? exposedCollector;
  const young = options.youngGeneration ?? v8YoungGeneration;
  const youngCap = options.youngGenerationCap ?? YOUNG_GENERATION_CAP;
  let collect: Collect | undefined | null = null; // null: not looked up yet (most runs never need it)
  let since = 0;
  let largeSince = 0;
  let youngCapped = false;
  let sinceYoungCheck = 0;
  return (bytes, largeBytes = 0) => {
    if (!youngCapped) {
      sinceYoungCheck += bytes;
      if (sinceYoungCheck >= YOUNG_GENERATION_CHECK_BYTES) {
        sinceYoungCheck = 0;
        if (young.size() >= youngCap) {
          young.stopGrowth();
          youngCapped = true;
        }
      }
    }
    since += bytes;
    largeSince += largeBytes;
    if (since < everyBytes && largeSince < largeEveryBytes) return;
    if (collect === null) collect = obtain();
    if (largeSince >= largeEveryBytes) {
      collect?.();
      largeSince = 0;
    } else collect?.({ type: "minor" });
    since = 0;
  };
}

/** Lines at least this long count as large for {@link createBufferFreer}, bytes. */
export const LARGE_LINE_BYTES = 256 * 1024;

/** V8's `gc()`: the global one under `node --expose-gc`, or one obtained at run time. */
export function exposedCollector(): Collect | undefined {
  const global = (globalThis as { gc?: unknown }).gc;
  if (typeof global === "function") return global as Collect;
  try {
    // The flag makes V8 install `gc` in contexts created from now on; the main context is left
    // as it was. (The same technique Jest uses to measure heap use.)
    setFlagsFromString("--expose-gc");
    const collect: unknown = runInNewContext("gc");
    return typeof collect === "function" ? (collect as Collect) : undefined;
  } catch {
    return undefined;
  }
}

/** The running V8's young generation: its `new_space`, grown no more by a V8 flag. */
const v8YoungGeneration: YoungGeneration = {
  size: () =>
    getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0,
  stopGrowth: () => setFlagsFromString("--semi-space-growth-factor=1"),
};

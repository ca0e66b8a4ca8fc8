import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { capYoungGeneration } from "./young-generation.js";

type Collect = (options?: { type?: "minor" | "major" }) => void;

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
 * After the first MiB of output it also caps V8's young generation (`capYoungGeneration`):
 * not at start, where a short run would pay for the watch (about 10 M instructions of
 * start-up) and never need it; a MiB of output is too little for V8 to grow the space twice.
 */
export function createBufferFreer(
  options: {
    everyBytes?: number;
    largeEveryBytes?: number;
    collect?: () => Collect | undefined;
    /** Started once, after {@link CAP_AFTER_BYTES} of output (default: `capYoungGeneration`). */
    capYoungGeneration?: () => void;
  } = {},
): (bytes: number, largeBytes?: number) => void {
  const everyBytes = options.everyBytes ?? 8 * 1024 * 1024;
  const largeEveryBytes = options.largeEveryBytes ?? 2 * 1024 * 1024;
  const obtain = options.collect ?? exposedCollector;
  let collect: Collect | undefined | null = null; // null: not looked up yet (most runs never need it)
  let since = 0;
  let largeSince = 0;
  let beforeCap: number | undefined = CAP_AFTER_BYTES;
  return (bytes, largeBytes = 0) => {
    if (beforeCap !== undefined) {
      beforeCap -= bytes;
      if (beforeCap <= 0) {
        beforeCap = undefined;
        (options.capYoungGeneration ?? capYoungGeneration)();
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

/** Output before the young generation's cap starts, bytes. */
const CAP_AFTER_BYTES = 1024 * 1024;

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

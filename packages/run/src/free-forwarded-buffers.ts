import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

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
 */
export function createBufferFreer(
  options: {
    everyBytes?: number;
    largeEveryBytes?: number;
    collect?: () => Collect | undefined;
  } = {},
): (bytes: number, largeBytes?: number) => void {
  const everyBytes = options.everyBytes ?? 8 * 1024 * 1024;
  const largeEveryBytes = options.largeEveryBytes ?? 2 * 1024 * 1024;
  const obtain = options.collect ?? exposedCollector;
  let collect: Collect | undefined | null = null; // null: not looked up yet (most runs never need it)
  let since = 0;
  let largeSince = 0;
  return (bytes, largeBytes = 0) => {
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

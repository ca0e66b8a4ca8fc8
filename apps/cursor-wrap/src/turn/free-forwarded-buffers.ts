import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

type Collect = (options?: { type?: "minor" | "major" }) => void;

/**
 * Agent output arrives in buffers of up to 64 KiB that are garbage once they are logged and
 * forwarded. They live outside the JavaScript heap, whose own allocations are tiny meanwhile,
 * so V8 frees them only when 64 MiB of them have piled up: on a stream with a 64 MiB line the
 * wrapper's peak memory would include all of it again. A young-generation collection after
 * every `everyBytes` of output (well under a millisecond on this small heap) frees them as
 * they go. Measured in BENCHMARKS.md (P5).
 */
export function createBufferFreer(
  options: { everyBytes?: number; collect?: () => Collect | undefined } = {},
): (bytes: number) => void {
  const everyBytes = options.everyBytes ?? 8 * 1024 * 1024;
  const obtain = options.collect ?? exposedCollector;
  let collect: Collect | undefined | null = null; // null: not looked up yet (most runs never need it)
  let since = 0;
  return (bytes) => {
    since += bytes;
    if (since < everyBytes) return;
    since = 0;
    if (collect === null) collect = obtain();
    collect?.({ type: "minor" });
  };
}

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

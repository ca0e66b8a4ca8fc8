import { constants, type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";
import { describe, expect, it, vi } from "vitest";
import { createBufferFreer, exposedCollector } from "./free-forwarded-buffers.js";

describe("createBufferFreer", () => {
  it("collects the young generation once per everyBytes of output", () => {
    const calls: unknown[] = [];
    let lookups = 0;
    const nudge = createBufferFreer({
      everyBytes: 100,
      capYoungGeneration: () => undefined,
      collect: () => {
        lookups += 1;
        return (options) => calls.push(options);
      },
    });
    nudge(60);
    expect(calls).toEqual([]);
    expect(lookups).toBe(0); // short runs never set the collector up
    nudge(60);
    expect(calls).toEqual([{ type: "minor" }]);
    nudge(99);
    expect(calls).toHaveLength(1);
    nudge(1);
    nudge(500);
    expect(calls).toHaveLength(3);
    expect(lookups).toBe(1);
  });

  it("collects everything once per largeEveryBytes of large lines", () => {
    const calls: unknown[] = [];
    const nudge = createBufferFreer({
      everyBytes: 100,
      largeEveryBytes: 100,
      capYoungGeneration: () => undefined,
      collect: () => (options) => calls.push(options),
    });
    nudge(90, 0);
    nudge(20, 90); // a young collection does not forget the large lines seen so far
    expect(calls).toEqual([{ type: "minor" }]);
    nudge(20, 20);
    expect(calls).toEqual([{ type: "minor" }, undefined]); // a full collection: no options
    nudge(100, 0);
    expect(calls).toEqual([{ type: "minor" }, undefined, { type: "minor" }]);
  });

  it("caps the young generation once, after the first MiB of output", () => {
    let caps = 0;
    const nudge = createBufferFreer({
      collect: () => undefined,
      capYoungGeneration: () => {
        caps += 1;
      },
    });
    nudge(512 * 1024);
    expect(caps).toBe(0); // a short run never starts the watch
    nudge(512 * 1024);
    expect(caps).toBe(1);
    for (let chunk = 0; chunk < 40; chunk += 1) nudge(512 * 1024);
    expect(caps).toBe(1);
  });

  it("does nothing when no collector can be had", () => {
    const nudge = createBufferFreer({
      everyBytes: 1,
      collect: () => undefined,
      capYoungGeneration: () => undefined,
    });
    expect(() => {
      nudge(10);
      nudge(10);
    }).not.toThrow();
  });
});

describe("exposedCollector", () => {
  it("obtains V8's own collector on this Node, without --expose-gc", async () => {
    const collect = exposedCollector();
    expect(typeof collect).toBe("function");
    // Node reports every collection V8 runs as a `gc` performance entry: ask for a young- and
    // an old-generation one and see both happen.
    const kinds: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        kinds.push((entry as PerformanceEntry & { detail: { kind: number } }).detail.kind);
      }
    });
    observer.observe({ entryTypes: ["gc"] });
    collect!({ type: "minor" });
    collect!({ type: "major" });
    // The entries are delivered later, from the event loop: on a loaded machine, seconds later.
    await vi.waitFor(
      () => {
        expect(kinds).toContain(constants.NODE_PERFORMANCE_GC_MINOR);
        expect(kinds).toContain(constants.NODE_PERFORMANCE_GC_MAJOR);
      },
      { timeout: 30_000, interval: 20 },
    );
    observer.disconnect();
  });
});

import { spawnSync } from "node:child_process";
import { constants, type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";
import { getHeapSpaceStatistics } from "node:v8";
import { describe, expect, it, vi } from "vitest";
import { createBufferFreer, exposedCollector } from "./free-forwarded-buffers.js";

describe("createBufferFreer", () => {
  it("collects the young generation once per everyBytes of output", () => {
    const calls: unknown[] = [];
    let lookups = 0;
    const nudge = createBufferFreer({
      everyBytes: 100,
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

  it("stops the young generation's growth once it has reached its cap, looking once per MiB", () => {
    const sizes = [1, 2, 4, 8, 16].map((mebibytes) => mebibytes * 1024 * 1024);
    let looks = 0;
    let stops = 0;
    const nudge = createBufferFreer({
      collect: () => undefined,
      youngGenerationCap: 8 * 1024 * 1024,
      youngGeneration: {
        size: () => sizes[Math.min(looks++, sizes.length - 1)]!,
        stopGrowth: () => {
          stops += 1;
        },
      },
    });
    nudge(512 * 1024);
    expect(looks).toBe(0); // not before a MiB of output
    for (let chunk = 0; chunk < 7; chunk += 1) nudge(512 * 1024);
    expect([looks, stops]).toEqual([4, 1]); // 1, 2, 4, then 8: capped
    for (let chunk = 0; chunk < 20; chunk += 1) nudge(512 * 1024);
    expect([looks, stops]).toEqual([4, 1]); // and never looked at again
  });

  it("does nothing when no collector can be had", () => {
    const nudge = createBufferFreer({ everyBytes: 1, collect: () => undefined });
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

describe("the young generation's cap", () => {
  // Last in this file: it changes a V8 flag for the rest of this test process.
  it("really keeps V8's young generation from growing", () => {
    // Garbage with a little that survives a while, as a stream of output leaves: V8 grows the
    // young generation to its maximum (a fresh process shows it, so the check is not vacuous).
    const allocate =
      "const ring = new Array(2000); for (let index = 0; index < 4000000; index += 1) { const item = { index, text: 'x' + index }; if (index % 256 === 0) ring[(index / 256) % ring.length] = item; }";
    const newSpaceSource =
      "require('node:v8').getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size";
    const control = spawnSync(
      process.execPath,
      [
        "-e",
        `const before = ${newSpaceSource}; ${allocate}; console.log(before, ${newSpaceSource});`,
      ],
      { encoding: "utf8" },
    );
    const [controlBefore, controlAfter] = control.stdout.trim().split(" ").map(Number);
    expect(controlAfter).toBeGreaterThanOrEqual(8 * controlBefore!);

    const newSpace = () =>
      getHeapSpaceStatistics().find((space) => space.space_name === "new_space")!.space_size;
    const before = newSpace();
    expect(before).toBeLessThanOrEqual(8 * 1024 * 1024);
    // A cap it has reached already: the first MiB of output stops its growth.
    createBufferFreer({ collect: () => undefined, youngGenerationCap: 0 })(1024 * 1024);
    new Function(allocate)();
    // V8 may take one more step it had decided on before the flag: no more.
    expect(newSpace()).toBeLessThanOrEqual(2 * before);
  });
});

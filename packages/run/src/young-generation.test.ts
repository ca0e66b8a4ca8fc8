import { spawnSync } from "node:child_process";
import { getHeapSpaceStatistics } from "node:v8";
import { describe, expect, it, vi } from "vitest";
import { capYoungGeneration } from "./young-generation.js";

/** Garbage with a little that survives a while, as streaming output leaves behind. */
const churn = (items: number) =>
  `const ring = new Array(2000); for (let index = 0; index < ${items}; index += 1) { const item = { index, text: 'x' + index }; if (index % 256 === 0) ring[(index / 256) % ring.length] = item; }`;

const MiB = 1024 * 1024;

describe("capYoungGeneration", () => {
  it("lets the young generation grow to 8 MiB, then sets the growth factor to 1 and stops watching", () => {
    const sizes = [1 * MiB, 2 * MiB, 4 * MiB, 8 * MiB, 8 * MiB];
    let looks = 0;
    const factors: number[] = [];
    let after: (() => void) | undefined;
    let stopped = 0;
    capYoungGeneration({
      size: () => sizes[Math.min(looks++, sizes.length - 1)]!,
      setGrowthFactor: (factor) => factors.push(factor),
      afterEachCollection: (callback) => {
        after = callback;
        return () => {
          stopped += 1;
        };
      },
    });
    expect(factors).toEqual([]); // V8's own growth until then
    after!(); // collections below the cap
    after!();
    expect(factors).toEqual([]);
    after!(); // at the cap: no more growth
    expect(factors).toEqual([1]);
    after!(); // an entry of the same batch, delivered before the watch ends: nothing more
    expect(factors).toEqual([1]);
    return vi.waitFor(() => expect(stopped).toBe(1));
  });

  // This file runs in a process of its own (the package's tests isolate files): the cap
  // changes a V8 flag for the rest of the process.
  it("caps a young generation that has grown already at once", () => {
    const factors: number[] = [];
    const watch = vi.fn(() => () => undefined);
    capYoungGeneration({
      size: () => 16 * MiB,
      setGrowthFactor: (factor) => factors.push(factor),
      afterEachCollection: watch,
    });
    expect(factors).toEqual([1]);
    expect(watch).not.toHaveBeenCalled();
  });

  it("really keeps V8's young generation at 8 MiB while garbage streams through", async () => {
    // A fresh Node with the same churn grows it to 32 MiB: the check below is not vacuous.
    const newSpace =
      "require('node:v8').getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size";
    const control = spawnSync(
      process.execPath,
      ["-e", `${churn(4_000_000)}; console.log(${newSpace})`],
      {
        encoding: "utf8",
      },
    );
    expect(Number(control.stdout.trim())).toBeGreaterThanOrEqual(16 * MiB);

    const youngSize = () =>
      getHeapSpaceStatistics().find((space) => space.space_name === "new_space")!.space_size;
    const stop = capYoungGeneration();
    const seen = new Set<number>([youngSize()]);
    // In slices, as output arrives in chunks: collections are reported between them.
    const slice = new Function(churn(100_000));
    for (let count = 0; count < 40; count += 1) {
      slice();
      seen.add(youngSize());
      await new Promise((resolve) => setImmediate(resolve));
    }
    stop();
    expect(Math.max(...seen)).toBeLessThanOrEqual(8 * MiB);
  });
});

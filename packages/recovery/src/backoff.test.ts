import { describe, expect, it } from "vitest";
import { backoffCeiling, backoffDelay, backoffSchedule, DEFAULT_BACKOFF } from "./backoff.js";

describe("backoffDelay", () => {
  // retry × jitter → wait, with the default 2 s base
  it.each([
    [1, 0, 1_000],
    [1, 0.5, 1_500],
    [1, 0.999_999, 2_000],
    [2, 0, 2_000],
    [2, 0.5, 3_000],
    [3, 0, 4_000],
    [3, 0.999_999, 8_000],
    [10, 0, 150_000],
    [10, 0.999_999, 300_000],
    [2_000, 0.5, 225_000],
  ])("retry %i with random %f waits %i ms", (retry, random, expected) => {
    expect(backoffDelay(retry, DEFAULT_BACKOFF, () => random)).toBe(expected);
  });

  it("stays within [ceiling/2, ceiling] for any random number", () => {
    for (let retry = 1; retry <= 12; retry += 1) {
      for (const random of [0, 0.1, 0.37, 0.5, 0.99, 1, -3, 7]) {
        const delay = backoffDelay(retry, { baseMs: 500, maxMs: 20_000 }, () => random);
        const ceiling = backoffCeiling(retry, { baseMs: 500, maxMs: 20_000 });
        expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
        expect(delay).toBeLessThanOrEqual(ceiling);
      }
    }
  });

  it("lists the schedule", () => {
    expect(backoffSchedule(3, DEFAULT_BACKOFF)).toEqual([
      { retry: 1, minMs: 1_000, maxMs: 2_000 },
      { retry: 2, minMs: 2_000, maxMs: 4_000 },
      { retry: 3, minMs: 4_000, maxMs: 8_000 },
    ]);
  });
});

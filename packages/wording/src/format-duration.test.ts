import { describe, expect, it } from "vitest";
import { formatDuration } from "./format-duration.js";

describe("formatDuration", () => {
  it.each([
    [0, "0ms"],
    [999.4, "999ms"],
    [1_000, "1.0s"],
    [59_940, "59.9s"],
    [1_497, "1.5s"],
    [60_000, "1m"],
    [303_500, "5m 3s"],
    [3_600_000, "1h"],
    [3_720_000, "1h 2m"],
    [-2_500, "-2.5s"],
    [Number.POSITIVE_INFINITY, "Infinity"],
  ])("renders %d ms as %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

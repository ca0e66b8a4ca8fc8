import { describe, expect, it } from "vitest";
import {
  DEFAULT_BACKGROUND_WAIT_MS,
  DEFAULT_LIVENESS,
  DEFAULT_THRESHOLDS,
  resolveThresholds,
  toolAllowance,
} from "./thresholds.js";

describe("resolveThresholds", () => {
  it("fills in every default", () => {
    const thresholds = resolveThresholds({});
    expect(thresholds).toEqual({
      ...DEFAULT_THRESHOLDS,
      maxTurnMs: undefined,
      warnFraction: 0.5,
      toolTimeouts: new Map([
        ["mcp", 600_000],
        ["task", 1_800_000],
        ["await", 600_000],
      ]),
      firstOutputMs: DEFAULT_THRESHOLDS.idleTimeoutMs,
      backgroundWaitMs: DEFAULT_BACKGROUND_WAIT_MS,
      liveness: undefined,
    });
    expect(resolveThresholds({ liveness: {} }).liveness).toEqual(DEFAULT_LIVENESS);
  });

  it("takes the first output allowance from the idle timeout, and kinds over the defaults", () => {
    const thresholds = resolveThresholds({
      idleTimeoutMs: 5_000,
      toolTimeouts: { mcp: 1, shell: 2 },
    });
    expect(thresholds.firstOutputMs).toBe(5_000);
    expect(thresholds.toolTimeouts.get("mcp")).toBe(1);
    expect(thresholds.toolTimeouts.get("shell")).toBe(2);
  });

  it.each([
    {
      options: { idleTimeoutMs: -1 },
      message: "idleTimeoutMs must be a number of milliseconds >= 0 (or Infinity), got -1",
    },
    { options: { toolGraceMs: Number.NaN }, message: "toolGraceMs must be" },
    { options: { maxTurnMs: -5 }, message: "maxTurnMs must be" },
    { options: { warnFraction: 1 }, message: "warnFraction must be in [0, 1), got 1" },
    { options: { toolTimeouts: { mcp: -1 } }, message: "toolTimeouts.mcp must be" },
    { options: { firstOutputMs: -1 }, message: "firstOutputMs must be" },
    { options: { backgroundWaitMs: -1 }, message: "backgroundWaitMs must be" },
    { options: { liveness: { minCpuFraction: -0.1 } }, message: "liveness.minCpuFraction must be" },
    { options: { exitGraceMs: -1, warnFraction: 2 }, message: "exitGraceMs must be" },
    // From JavaScript, or parsed from a file: not a number at all.
    { options: { maxTurnMs: "abc" as unknown as number }, message: "maxTurnMs must be" },
    { options: { idleTimeoutMs: "60000" as unknown as number }, message: "idleTimeoutMs must be" },
  ])("rejects $options", ({ options, message }) => {
    expect(() => resolveThresholds(options)).toThrow(RangeError);
    expect(() => resolveThresholds(options)).toThrow(message);
  });

  it("takes Infinity as no limit", () => {
    expect(resolveThresholds({ idleTimeoutMs: Number.POSITIVE_INFINITY }).idleTimeoutMs).toBe(
      Number.POSITIVE_INFINITY,
    );
  });
});

describe("toolAllowance", () => {
  const thresholds = resolveThresholds({ idleTimeoutMs: 60_000, toolGraceMs: 30_000 });
  it.each([
    { name: "a declared timeout", kind: "shell", declared: 10_000, expected: 40_000 },
    { name: "a declared 0", kind: "shell", declared: 0, expected: 30_000 },
    { name: "the kind's default", kind: "task", declared: undefined, expected: 1_830_000 },
    {
      name: "the idle timeout for an unknown kind",
      kind: "read",
      declared: undefined,
      expected: 90_000,
    },
    { name: "an own-key lookup only", kind: "__proto__", declared: undefined, expected: 90_000 },
    { name: "a negative declared timeout", kind: "mcp", declared: -1, expected: 630_000 },
    { name: "a NaN declared timeout", kind: "mcp", declared: Number.NaN, expected: 630_000 },
    {
      name: "an infinite declared timeout",
      kind: "read",
      declared: Number.POSITIVE_INFINITY,
      expected: 90_000,
    },
  ])("$name: $expected", ({ kind, declared, expected }) => {
    expect(toolAllowance(kind, declared, thresholds)).toBe(expected);
  });
});

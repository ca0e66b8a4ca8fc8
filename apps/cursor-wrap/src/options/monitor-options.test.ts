import { describe, expect, it } from "vitest";
import { resolveOptions } from "./flag-table.js";
import { FLAGS } from "./flags.js";
import {
  MONITOR_FLAGS,
  type MonitorThresholds,
  monitorOptions,
  monitorThresholdsOf,
} from "./monitor-options.js";

const thresholds = (given: Record<string, string> = {}): MonitorThresholds =>
  resolveOptions(MONITOR_FLAGS, { given: new Map(Object.entries(given)), env: {} });

/** What a session log holds of the options: JSON, where `Infinity` is `null`. */
const logged = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe("monitorOptions", () => {
  it("builds the monitor's options from the rows that name them", () => {
    expect(monitorOptions(thresholds())).toEqual({
      idleTimeoutMs: 60_000,
      toolGraceMs: 30_000,
      exitGraceMs: 10_000,
      toolTimeouts: { mcp: 600_000, task: 1_800_000, await: 600_000 },
      firstOutputMs: 180_000,
      backgroundWaitMs: 600_000,
      liveness: { maxQuietMs: 1_800_000, maxDrainMs: 300_000 },
    });
    expect(
      monitorOptions(
        thresholds({ "max-turn-duration": "1h", "exit-grace": "off", "tool-timeout": "shell=5m" }),
      ),
    ).toMatchObject({
      maxTurnMs: 3_600_000,
      exitGraceMs: Number.POSITIVE_INFINITY,
      toolTimeouts: { mcp: 600_000, task: 1_800_000, await: 600_000, shell: 300_000 },
    });
  });

  it("leaves the quiet-but-working rule off with --max-quiet 0", () => {
    const options = monitorOptions(thresholds({ "max-quiet": "0s", "max-drain": "1m" }));
    expect(options).not.toHaveProperty("liveness");
  });

  it("takes every threshold row of the run's table, and only those", () => {
    expect(MONITOR_FLAGS.map((row) => row.name)).toEqual(
      FLAGS.filter((row) => row.monitor !== undefined).map((row) => row.name),
    );
    expect(MONITOR_FLAGS.map((row) => row.monitor)).toEqual([
      "idleTimeoutMs",
      "toolGraceMs",
      "toolTimeouts",
      "exitGraceMs",
      "firstOutputMs",
      "liveness.maxQuietMs",
      "liveness.maxDrainMs",
      "backgroundWaitMs",
      "maxTurnMs",
    ]);
  });
});

describe("monitorThresholdsOf", () => {
  it.each([
    ["the defaults", {}],
    ["thresholds turned off", { "idle-timeout": "off", "max-quiet": "off", "exit-grace": "off" }],
    ["a budget and tool allowances", { "max-turn-duration": "90m", "tool-timeout": "mcp=off" }],
    ["silence alone deciding", { "max-quiet": "0s" }],
  ])("reads back, from a log, the flags' values that gave the options: %s", (_, given) => {
    const values = thresholds(given);
    const read = monitorThresholdsOf(logged(monitorOptions(values)));
    // What the monitor was given is what replay gives it again.
    expect(monitorOptions({ ...thresholds(), ...read })).toEqual(monitorOptions(values));
  });

  it("reads nothing from a record that holds no options", () => {
    expect(monitorThresholdsOf(undefined)).toEqual({});
    expect(monitorThresholdsOf("60s")).toEqual({});
  });
});

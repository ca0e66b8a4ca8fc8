import { describe, expect, it } from "vitest";
import { resolveOptions } from "../../options/flag-table.js";
import { MONITOR_FLAGS, monitorOptions } from "../../options/monitor-options.js";
import { recordedThresholds } from "./index.js";

/** A session log's `options` record as JSON holds it (`Infinity` is `null`). */
const asLogged = (record: Record<string, unknown>): Record<string, unknown> =>
  JSON.parse(JSON.stringify(record));

describe("recordedThresholds", () => {
  const values = resolveOptions(MONITOR_FLAGS, {
    given: new Map([
      ["idle-timeout", "90s"],
      ["first-output-timeout", "off"],
      ["max-turn-duration", "2h"],
      ["tool-timeout", "shell=5m"],
      ["background-wait", "3m"],
    ]),
    env: {},
  });

  it("reads the monitor's options a log records as one object", () => {
    const record = asLogged({ mode: "print", monitor: monitorOptions(values) });
    expect(recordedThresholds(record)).toEqual(values);
  });

  it("reads a log written before, with one field per threshold, to the same thresholds", () => {
    const earlier = asLogged({
      mode: "print",
      idle_timeout_ms: values.idleTimeoutMs,
      tool_grace_ms: values.toolGraceMs,
      tool_timeouts: values.toolTimeouts,
      exit_grace_ms: values.exitGraceMs,
      first_output_ms: values.firstOutputMs,
      max_quiet_ms: values.maxQuietMs,
      max_drain_ms: values.maxDrainMs,
      background_wait_ms: values.backgroundWaitMs,
      max_turn_ms: values.maxTurnMs,
    });
    expect(recordedThresholds(earlier)).toEqual(values);
    expect(recordedThresholds(asLogged({ mode: "print", max_quiet_ms: 0 }))).toEqual({
      maxQuietMs: 0,
    });
  });
});

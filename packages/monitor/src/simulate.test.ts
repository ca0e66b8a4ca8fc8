import { describe, expect, it } from "vitest";
import { simulate, type TimedSignal } from "./simulate.js";

const at = (ms: number, signal: TimedSignal["signal"]): TimedSignal => ({ at: ms, signal });

describe("simulate", () => {
  it("reports no verdict for a stream that completes within its thresholds", () => {
    const result = simulate(
      [
        at(0, { type: "session", sessionId: "s" }),
        at(100, { type: "toolStart", id: "a", kind: "shell", timeoutMs: 10_000 }),
        at(5_500, { type: "toolEnd", id: "a" }),
        at(6_000, { type: "done" }),
        at(6_050, { type: "exit" }),
      ],
      { until: Number.POSITIVE_INFINITY },
    );
    expect(result.verdict).toBeUndefined();
    expect(result.entries).toEqual([]);
  });

  it("reports the exact time a tool-timeout hang fires when the stream goes silent", () => {
    const result = simulate(
      [
        at(1_000, { type: "activity" }),
        at(2_000, { type: "toolStart", id: "a", kind: "shell", timeoutMs: 10_000 }),
      ],
      { until: Number.POSITIVE_INFINITY },
    );
    expect(result.entries.map((entry) => [entry.type, entry.at])).toEqual([
      ["warning", 22_000],
      ["verdict", 42_000],
    ]);
    expect(result.verdict).toMatchObject({ at: 42_000, verdict: "hang", reason: { kind: "tool" } });
  });

  it("stops at the first verdict, as a supervisor that kills would", () => {
    const result = simulate(
      [at(0, { type: "activity" }), at(70_000, { type: "activity" }), at(80_000, { type: "done" })],
      { warnFraction: 0 },
    );
    expect(result.verdict).toMatchObject({ at: 60_000, verdict: "hang" });
    expect(result.entries).toHaveLength(1);
  });

  it("records tolerated oddities as notices and a linger after the result", () => {
    const result = simulate(
      [at(0, { type: "toolEnd", id: "ghost" }), at(1_000, { type: "done" })],
      { until: 60_000, exitGraceMs: 5_000 },
    );
    expect(result.entries[0]).toMatchObject({
      type: "notice",
      at: 0,
      warning: { code: "unmatched-end" },
    });
    expect(result.verdict).toMatchObject({ at: 6_000, verdict: "linger" });
  });

  it("stays silent past the last signal only as far as `until`", () => {
    const result = simulate([at(0, { type: "activity" })], { until: 59_999, warnFraction: 0 });
    expect(result.verdict).toBeUndefined();
  });
});

describe("simulate with liveness", () => {
  it("answers the monitor's probes with the recorded samples, and says when there are none", () => {
    const recorded = [
      at(0, { type: "activity" }),
      at(30_000, { type: "liveness", cpuMs: 10 }),
      at(60_000, { type: "liveness", cpuMs: 6_000 }),
      at(90_500, { type: "liveness", cpuMs: 3_000 }),
      at(120_000, { type: "liveness", cpuMs: 0 }),
    ];
    const result = simulate(recorded, {
      idleTimeoutMs: 60_000,
      warnFraction: 0,
      liveness: {},
      until: Number.POSITIVE_INFINITY,
    });
    expect(result.entries.map((entry) => [entry.type, entry.at])).toEqual([
      ["working", 60_000],
      ["verdict", 120_000],
    ]);
    expect(result.verdict?.reason.liveness?.working).toBe(false);

    const capture = simulate([at(0, { type: "activity" })], {
      idleTimeoutMs: 60_000,
      warnFraction: 0,
      liveness: {},
      until: Number.POSITIVE_INFINITY,
    });
    expect(capture.entries.map((entry) => entry.type)).toEqual([
      "unsampled",
      "unsampled",
      "verdict",
    ]);
    expect(capture.verdict?.at).toBe(60_000);
    // Nothing was measured there: the verdict says so, with no figure.
    expect(capture.verdict?.reason.message).toContain(
      "the agent's processes could not be looked at (taken as parked)",
    );
    expect(capture.verdict?.reason.message).not.toMatch(/CPU|moved/);
  });

  it("keeps a soft warning that comes with a probe, as a live run does", () => {
    // Half the idle timeout: the warning is due where the monitor also asks for a sample.
    const result = simulate(
      [at(0, { type: "activity" }), at(30_000, { type: "liveness", cpuMs: 0 })],
      {
        idleTimeoutMs: 60_000,
        warnFraction: 0.5,
        liveness: {},
        until: Number.POSITIVE_INFINITY,
      },
    );
    expect(result.entries.map((entry) => entry.type)).toContain("warning");
    expect(result.entries.find((entry) => entry.type === "warning")).toMatchObject({
      warning: { kind: "idle" },
    });
  });
});

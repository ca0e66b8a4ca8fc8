import { realCaptures } from "@cursor-wrap/fixtures";
import { DEFAULT_THRESHOLDS, simulate, type TimedSignal } from "@cursor-wrap/monitor";
import { describe, expect, it } from "vitest";
import { recordedTimeline, toMonitorSignal } from "./extract.js";
import { createLineFramer } from "./line-framer.js";
import type { AgentEvent } from "./types.js";

/** A capture's events as monitor signals at their recorded times. */
function timedSignals(bytes: Buffer): { events: AgentEvent[]; timed: TimedSignal[] } {
  const framer = createLineFramer();
  const events = [...framer.push(bytes), ...framer.end()];
  const times = recordedTimeline(events);
  return {
    events,
    timed: events.map((event, index) => ({ at: times[index]!, signal: toMonitorSignal(event) })),
  };
}

describe("real captures replayed through the monitor at their recorded timing", () => {
  for (const capture of realCaptures()) {
    it(`${capture.name}: no hang with default options`, () => {
      const { timed } = timedSignals(capture.bytes);
      const result = simulate(timed);
      expect(result.verdict).toBeUndefined();
      // The TAIL excerpt starts mid-session with a completion whose start is not in it: tolerated.
      const notices = result.entries.filter((entry) => entry.type === "notice");
      expect(
        notices.every((entry) => entry.type === "notice" && entry.warning.code === "unmatched-end"),
      ).toBe(true);
    });

    const startIndexes = timedSignals(capture.bytes).timed.flatMap((entry, index) =>
      entry.signal.type === "toolStart" ? [index] : [],
    );
    for (const startIndex of startIndexes) {
      it(`${capture.name}: cut after the tool start on line ${startIndex + 1} and left silent, hangs at its deadline`, () => {
        const { timed } = timedSignals(capture.bytes);
        const cut = timed.slice(0, startIndex + 1);
        // Parallel calls started just before this one are still open; the hang needs all expired.
        const openStarts = new Map<
          string,
          { at: number; timeoutMs: number | undefined; kind: string }
        >();
        for (const { at, signal } of cut) {
          if (signal.type === "toolStart")
            openStarts.set(signal.id, { at, timeoutMs: signal.timeoutMs, kind: signal.kind });
          if (signal.type === "toolEnd") openStarts.delete(signal.id);
        }
        const expected = Math.max(
          ...[...openStarts.values()].map(
            (call) =>
              call.at +
              (call.timeoutMs ?? DEFAULT_THRESHOLDS.idleTimeoutMs) +
              DEFAULT_THRESHOLDS.toolGraceMs,
          ),
        );
        const result = simulate(cut, { until: Number.POSITIVE_INFINITY });
        expect(result.verdict).toMatchObject({
          verdict: "hang",
          at: expected,
          reason: { kind: "tool" },
        });
        const start = cut[startIndex]!;
        if (
          start.signal.type === "toolStart" &&
          start.signal.timeoutMs !== undefined &&
          openStarts.size === 1
        ) {
          // The plain case: exactly declared timeout + grace after the start.
          expect(result.verdict!.at - start.at).toBe(
            start.signal.timeoutMs + DEFAULT_THRESHOLDS.toolGraceMs,
          );
        }
      });
    }
  }

  it("direct-sleep, cut after `sleep 5` starts, hangs exactly 10 s + 30 s later", () => {
    const capture = realCaptures().find(
      (candidate) => candidate.name === "reifying-cursor-hack--direct-sleep",
    )!;
    const { timed } = timedSignals(capture.bytes);
    const startIndex = timed.findIndex((entry) => entry.signal.type === "toolStart");
    const result = simulate(timed.slice(0, startIndex + 1), { until: Number.POSITIVE_INFINITY });
    expect(result.verdict?.at).toBe(1_770_823_845_357 + 40_000);
    expect(result.verdict?.reason.openCalls[0]).toMatchObject({
      kind: "shell",
      label: "sleep 5",
      timeoutMs: 10_000,
    });
  });

  it("direct-sleep left silent after its result is a linger, not a hang", () => {
    const capture = realCaptures().find(
      (candidate) => candidate.name === "reifying-cursor-hack--direct-sleep",
    )!;
    const { timed } = timedSignals(capture.bytes);
    const result = simulate(timed, { until: Number.POSITIVE_INFINITY });
    expect(result.verdict).toMatchObject({
      verdict: "linger",
      at: timed.at(-1)!.at + DEFAULT_THRESHOLDS.exitGraceMs,
    });
  });
});

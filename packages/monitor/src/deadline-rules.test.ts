import { describe, expect, it } from "vitest";
import { report, stateWith, thresholdsWith, withLiveness } from "./__fixtures__/monitor-states.js";
import {
  backgroundWaitRule,
  budgetRule,
  drainRule,
  firstOutputRule,
  type HangDeadline,
  hangDeadline,
  idleRule,
  judgedSilence,
  lingerRule,
  maxDrainRule,
  maxQuietRule,
  nextDeadline,
  sampleRule,
  softWarningRule,
  toolRule,
  verdictAt,
} from "./deadline-rules.js";

// Each rule alone, on states built at fixed times: what it answers, or that it does not apply.
// Thresholds are the defaults unless a row says otherwise: idle 60 s, tool grace 30 s, exit
// grace 10 s, background wait 10 min; with liveness, max quiet 30 min and max drain 5 min.

const printed = { lastEventType: "assistant" };

describe("firstOutputRule", () => {
  const thresholds = thresholdsWith({ firstOutputMs: 180_000 });
  it.each([
    { name: "nothing printed since the start", state: {}, at: 180_000, anchor: 0 },
    {
      name: "counted from the start given",
      state: { startedAt: 500, lastAt: 500 },
      at: 180_500,
      anchor: 500,
    },
    {
      name: "counted from the end of a pause",
      state: { lastAt: 5_000 },
      at: 185_000,
      anchor: 5_000,
    },
    {
      name: "counted from the last time the tree was seen working",
      state: { samples: { workingAt: 90_000 } },
      at: 270_000,
      anchor: 90_000,
    },
  ])("$name: at $at", ({ state, at, anchor }) => {
    expect(firstOutputRule(stateWith(state), thresholds)).toEqual({
      kind: "idle",
      rule: "first-output",
      at,
      anchor,
      span: 180_000,
    });
  });

  it.each([
    { name: "something was printed", state: printed },
    { name: "a tool call is open", state: { calls: [{ id: "a", startedAt: 0, limitMs: 1 }] } },
    { name: "background work is alive", state: { background: [{ id: "b", since: 0 }] } },
  ])("does not apply when $name", ({ state }) => {
    expect(firstOutputRule(stateWith(state), thresholds)).toBeUndefined();
  });
});

describe("idleRule", () => {
  it.each([
    {
      name: "silence since the last signal",
      state: { lastAt: 10_000 },
      at: 70_000,
      anchor: 10_000,
    },
    {
      name: "a working tree moves the start of the silence",
      state: { lastAt: 10_000, samples: { workingAt: 50_000 } },
      at: 110_000,
      anchor: 50_000,
    },
    {
      name: "work seen before the last signal does not",
      state: { lastAt: 10_000, samples: { workingAt: 5_000 } },
      at: 70_000,
      anchor: 10_000,
    },
  ])("$name: at $at", ({ state, at, anchor }) => {
    expect(idleRule(stateWith({ ...printed, ...state }), thresholdsWith())).toEqual({
      kind: "idle",
      rule: "idle",
      at,
      anchor,
      span: 60_000,
    });
  });

  it("never fires with no idle limit", () => {
    const thresholds = thresholdsWith({ idleTimeoutMs: Number.POSITIVE_INFINITY });
    expect(idleRule(stateWith({ lastAt: 3 }), thresholds).at).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("toolRule", () => {
  it.each([
    {
      name: "the call's own deadline, when the stream went silent at its start",
      calls: [{ id: "a", startedAt: 0, limitMs: 40_000 }],
      lastAt: 0,
      expected: { at: 40_000, anchor: 0, span: 40_000 },
    },
    {
      name: "the silence, when the stream talked past the call's deadline",
      calls: [{ id: "a", startedAt: 0, limitMs: 40_000 }],
      lastAt: 20_000,
      expected: { at: 50_000, anchor: 20_000, span: 30_000 },
    },
    {
      name: "the call's deadline, when the silence ends at the same time",
      calls: [{ id: "a", startedAt: 0, limitMs: 40_000 }],
      lastAt: 10_000,
      expected: { at: 40_000, anchor: 0, span: 40_000 },
    },
    {
      name: "the parallel call that expires last",
      calls: [
        { id: "a", startedAt: 0, limitMs: 40_000 },
        { id: "b", startedAt: 5_000, limitMs: 100_000 },
        { id: "c", startedAt: 6_000, limitMs: 10_000 },
      ],
      lastAt: 6_000,
      expected: { at: 105_000, anchor: 5_000, span: 100_000 },
    },
    {
      name: "the first of two calls that expire together",
      calls: [
        { id: "a", startedAt: 0, limitMs: 40_000 },
        { id: "b", startedAt: 10_000, limitMs: 30_000 },
      ],
      lastAt: 10_000,
      expected: { at: 40_000, anchor: 0, span: 40_000 },
    },
    {
      name: "the silence since the tree was last seen working",
      calls: [{ id: "a", startedAt: 0, limitMs: 40_000 }],
      lastAt: 20_000,
      samples: { workingAt: 35_000 },
      expected: { at: 65_000, anchor: 35_000, span: 30_000 },
    },
  ])("$name", ({ calls, lastAt, samples, expected }) => {
    const state = stateWith({ ...printed, calls, lastAt, ...(samples ? { samples } : {}) });
    expect(toolRule(state, thresholdsWith())).toEqual({ kind: "tool", rule: "tool", ...expected });
  });

  it("does not apply with no call open", () => {
    expect(toolRule(stateWith(printed), thresholdsWith())).toBeUndefined();
  });
});

describe("backgroundWaitRule", () => {
  const background = [{ id: "b", since: 1_000, pid: 42 }];
  it.each([
    { name: "from the last signal", state: { lastAt: 2_000 }, at: 602_000 },
    {
      name: "a working tree does not move it",
      state: { lastAt: 2_000, samples: { workingAt: 50_000 } },
      at: 602_000,
    },
  ])("$name: at $at", ({ state, at }) => {
    expect(backgroundWaitRule(stateWith({ ...state, background }), thresholdsWith())).toEqual({
      kind: "background",
      rule: "background-wait",
      at,
      anchor: 2_000,
      span: 600_000,
    });
  });

  it.each([
    { name: "no background work", state: {} },
    {
      name: "a tool call open too",
      state: { background, calls: [{ id: "a", startedAt: 0, limitMs: 1 }] },
    },
  ])("does not apply with $name", ({ state }) => {
    expect(backgroundWaitRule(stateWith(state), thresholdsWith())).toBeUndefined();
  });
});

describe("maxQuietRule", () => {
  it.each([
    { name: "liveness off", thresholds: thresholdsWith(), expected: undefined },
    { name: "liveness on", thresholds: withLiveness(), expected: 1_801_000 },
    {
      name: "max quiet 0 (silence alone decides)",
      thresholds: withLiveness({ liveness: { maxQuietMs: 0 } }),
      expected: 1_000,
    },
  ])("$name: $expected", ({ thresholds, expected }) => {
    expect(maxQuietRule(stateWith({ lastAt: 1_000 }), thresholds)).toBe(expected);
  });
});

describe("lingerRule", () => {
  it.each([
    { name: "the exit grace after the result", state: { doneAt: 5_000 }, at: 15_000 },
    {
      name: "events after the result do not move it",
      state: { doneAt: 5_000, lastAt: 8_000 },
      at: 15_000,
    },
  ])("$name: at $at", ({ state, at }) => {
    expect(lingerRule(stateWith(state), thresholdsWith())).toEqual({
      kind: "linger",
      rule: "linger",
      at,
      anchor: 5_000,
      span: 10_000,
    });
  });

  it.each([
    { name: "before the result", state: {}, thresholds: thresholdsWith() },
    {
      name: "with liveness on (the drain rule)",
      state: { doneAt: 5_000 },
      thresholds: withLiveness(),
    },
  ])("does not apply $name", ({ state, thresholds }) => {
    expect(lingerRule(stateWith(state), thresholds)).toBeUndefined();
  });
});

describe("drainRule and maxDrainRule", () => {
  it.each([
    {
      name: "nothing after the result",
      state: { doneAt: 5_000, lastAt: 5_000 },
      at: 15_000,
      anchor: 5_000,
    },
    {
      name: "an event after the result",
      state: { doneAt: 5_000, lastAt: 8_000 },
      at: 18_000,
      anchor: 8_000,
    },
    {
      name: "the tree seen working after the result",
      state: { doneAt: 5_000, lastAt: 5_000, samples: { workingAt: 40_000 } },
      at: 50_000,
      anchor: 40_000,
    },
    {
      name: "work seen before the result",
      state: { doneAt: 5_000, lastAt: 5_000, samples: { workingAt: 1_000 } },
      at: 15_000,
      anchor: 5_000,
    },
    {
      name: "draining up to the cap",
      state: { doneAt: 0, samples: { workingAt: 299_000 } },
      at: 300_000,
      anchor: 299_000,
    },
  ])("$name: at $at", ({ state, at, anchor }) => {
    expect(drainRule(stateWith(state), withLiveness())).toEqual({
      kind: "linger",
      rule: "drain",
      at,
      anchor,
      span: 10_000,
    });
  });

  it("caps at the exit grace when the drain allowance is shorter", () => {
    const thresholds = withLiveness({ liveness: { maxDrainMs: 1_000 } });
    const state = stateWith({ doneAt: 0, lastAt: 4_000 });
    expect(maxDrainRule(state, thresholds)).toBe(10_000);
    expect(drainRule(state, thresholds)?.at).toBe(10_000);
  });

  it.each([
    { name: "before the result", state: {}, thresholds: withLiveness() },
    {
      name: "with liveness off (the linger rule)",
      state: { doneAt: 5_000 },
      thresholds: thresholdsWith(),
    },
  ])("do not apply $name", ({ state, thresholds }) => {
    expect(drainRule(stateWith(state), thresholds)).toBeUndefined();
    expect(maxDrainRule(stateWith(state), thresholds)).toBeUndefined();
  });
});

describe("budgetRule", () => {
  it.each([
    { name: "no budget", options: {}, expected: undefined },
    { name: "maxTurnMs after the start", options: { maxTurnMs: 1_000 }, expected: 1_500 },
    { name: "a budget of 0", options: { maxTurnMs: 0 }, expected: 500 },
  ])("$name: $expected", ({ options, expected }) => {
    expect(budgetRule(stateWith({ startedAt: 500, lastAt: 900 }), thresholdsWith(options))).toBe(
      expected,
    );
  });
});

const idle = (at: number, anchor: number, span: number): HangDeadline => ({
  kind: "idle",
  rule: "idle",
  at,
  anchor,
  span,
});

describe("softWarningRule", () => {
  const background: HangDeadline = {
    kind: "background",
    rule: "background-wait",
    at: 600_000,
    anchor: 0,
    span: 600_000,
  };
  it.each([
    {
      name: "half of the span",
      deadline: idle(60_000, 0, 60_000),
      state: {},
      options: {},
      expected: 30_000,
    },
    {
      name: "the configured fraction of the span",
      deadline: idle(70_000, 10_000, 60_000),
      state: {},
      options: { warnFraction: 0.25 },
      expected: 25_000,
    },
    {
      name: "warnings off",
      deadline: idle(60_000, 0, 60_000),
      state: {},
      options: { warnFraction: 0 },
      expected: undefined,
    },
    {
      name: "already warned for this deadline",
      deadline: idle(60_000, 0, 60_000),
      state: { warnedFor: 60_000 },
      options: {},
      expected: undefined,
    },
    {
      name: "warned for an earlier deadline",
      deadline: idle(90_000, 30_000, 60_000),
      state: { warnedFor: 60_000, lastAt: 30_000 },
      options: {},
      expected: 60_000,
    },
    {
      name: "the tree was seen working in this silence",
      deadline: idle(120_000, 60_000, 60_000),
      state: { samples: { workingAt: 60_000 } },
      options: {},
      expected: undefined,
    },
    {
      name: "a background wait, even with the tree working",
      deadline: background,
      state: { samples: { workingAt: 60_000 } },
      options: {},
      expected: 300_000,
    },
  ])("$name: $expected", ({ deadline, state, options, expected }) => {
    expect(softWarningRule(deadline, stateWith(state), thresholdsWith(options))).toBe(expected);
  });
});

describe("sampleRule", () => {
  it.each([
    { name: "liveness off", thresholds: thresholdsWith(), samples: {}, expected: undefined },
    { name: "no sample yet: halfway", thresholds: withLiveness(), samples: {}, expected: 40_000 },
    {
      name: "the last sample before this silence: halfway",
      thresholds: withLiveness(),
      samples: { lastSampleAt: 9_000 },
      expected: 40_000,
    },
    {
      name: "a sample already taken in this silence",
      thresholds: withLiveness(),
      samples: { lastSampleAt: 10_000 },
      expected: undefined,
    },
  ])("$name: $expected", ({ thresholds, samples, expected }) => {
    const state = stateWith({ lastAt: 10_000, samples });
    expect(sampleRule(idle(70_000, 10_000, 60_000), state, thresholds)).toBe(expected);
  });
});

describe("hangDeadline", () => {
  const call = { id: "a", startedAt: 0, limitMs: 40_000 };
  const work = { id: "b", since: 0 };
  it.each([
    {
      name: "nothing printed",
      state: {},
      thresholds: thresholdsWith(),
      rule: "first-output",
      at: 60_000,
    },
    {
      name: "something printed",
      state: printed,
      thresholds: thresholdsWith(),
      rule: "idle",
      at: 60_000,
    },
    {
      name: "a call open",
      state: { ...printed, calls: [call] },
      thresholds: thresholdsWith(),
      rule: "tool",
      at: 40_000,
    },
    {
      name: "background work",
      state: { ...printed, background: [work] },
      thresholds: thresholdsWith(),
      rule: "background-wait",
      at: 600_000,
    },
    {
      name: "background work and a call open",
      state: { ...printed, background: [work], calls: [call] },
      thresholds: thresholdsWith(),
      rule: "tool",
      at: 40_000,
    },
    {
      name: "a long call, capped by max quiet",
      state: { ...printed, calls: [{ ...call, limitMs: 2_000_000 }] },
      thresholds: withLiveness(),
      rule: "max-quiet",
      at: 1_800_000,
    },
    {
      name: "a long idle timeout, capped by max quiet",
      state: printed,
      thresholds: withLiveness({ idleTimeoutMs: 3_600_000 }),
      rule: "max-quiet",
      at: 1_800_000,
    },
    {
      name: "a tree working for long, capped by max quiet",
      state: { ...printed, samples: { workingAt: 1_790_000 } },
      thresholds: withLiveness(),
      rule: "max-quiet",
      at: 1_800_000,
    },
    {
      name: "a deadline before the cap",
      state: printed,
      thresholds: withLiveness(),
      rule: "idle",
      at: 60_000,
    },
    {
      name: "a background wait longer than max quiet, not capped",
      state: { ...printed, background: [work] },
      thresholds: withLiveness({ backgroundWaitMs: 3_600_000 }),
      rule: "background-wait",
      at: 3_600_000,
    },
  ])("$name: $rule at $at", ({ state, thresholds, rule, at }) => {
    expect(hangDeadline(stateWith(state), thresholds)).toMatchObject({ rule, at });
  });
});

describe("nextDeadline", () => {
  it.each([
    { name: "the process exited", state: { exited: true }, options: {}, expected: undefined },
    { name: "paused, no budget", state: { pausedAt: 1 }, options: {}, expected: undefined },
    {
      name: "paused: only the budget runs",
      state: { pausedAt: 1 },
      options: { maxTurnMs: 90_000 },
      expected: { at: 90_000, rule: "budget" },
    },
    {
      name: "silence: the soft warning first",
      state: printed,
      options: {},
      expected: { at: 30_000, rule: "soft-warning" },
    },
    {
      name: "silence, warned: the idle hang",
      state: { ...printed, warnedFor: 60_000 },
      options: {},
      expected: { at: 60_000, rule: "idle" },
    },
    {
      name: "a budget before the hang",
      state: printed,
      options: { maxTurnMs: 20_000 },
      expected: { at: 20_000, rule: "budget" },
    },
    {
      name: "after the result: the linger, whatever the budget",
      state: { ...printed, doneAt: 1_000 },
      options: { maxTurnMs: 1 },
      expected: { at: 11_000, rule: "linger" },
    },
    {
      name: "liveness on: the baseline sample halfway",
      state: printed,
      options: { liveness: {}, warnFraction: 0 },
      expected: { at: 30_000, rule: "sample" },
    },
    {
      name: "liveness on, after the result: the baseline sample halfway through the grace",
      state: { ...printed, doneAt: 0 },
      options: { liveness: {} },
      expected: { at: 5_000, rule: "sample" },
    },
    {
      name: "liveness on, a baseline taken: the verdict",
      state: { ...printed, samples: { lastSampleAt: 30_000 }, warnedFor: 60_000 },
      options: { liveness: {} },
      expected: { at: 60_000, rule: "idle" },
    },
    {
      name: "a second sample due after the deadline",
      state: { ...printed, samples: { lastSampleAt: 60_000, retryAt: 65_000 }, warnedFor: 60_000 },
      options: { liveness: {} },
      expected: { at: 65_000, rule: "sample-retry" },
    },
    {
      name: "a second sample due at the deadline",
      state: { ...printed, samples: { lastSampleAt: 55_000, retryAt: 60_000 }, warnedFor: 60_000 },
      options: { liveness: {} },
      expected: { at: 60_000, rule: "sample-retry" },
    },
    {
      name: "a tree working for long: max quiet",
      state: {
        ...printed,
        samples: { lastSampleAt: 1_790_000, workingAt: 1_790_000, lastWorking: report(true) },
      },
      options: { liveness: {} },
      expected: { at: 1_800_000, rule: "max-quiet" },
    },
  ])("$name", ({ state, options, expected }) => {
    expect(nextDeadline(stateWith(state), thresholdsWith(options))).toEqual(expected);
  });
});

describe("verdictAt", () => {
  it.each([
    { name: "the hang", state: printed, options: {}, expected: 60_000 },
    {
      name: "the budget, when it comes first",
      state: printed,
      options: { maxTurnMs: 5_000 },
      expected: 5_000,
    },
    {
      name: "the exit deadline after the result",
      state: { doneAt: 2_000 },
      options: { maxTurnMs: 1 },
      expected: 12_000,
    },
  ])("$name: $expected", ({ state, options, expected }) => {
    expect(verdictAt(stateWith(state), thresholdsWith(options))).toBe(expected);
  });
});

describe("judgedSilence", () => {
  it.each([
    {
      name: "before the result: the quiet since the last signal and the hang",
      state: { ...printed, lastAt: 1_000 },
      expected: { anchor: 1_000, due: 61_000 },
    },
    {
      name: "a tool call: the quiet, not the call's start",
      state: { ...printed, lastAt: 1_000, calls: [{ id: "a", startedAt: 0, limitMs: 90_000 }] },
      expected: { anchor: 1_000, due: 90_000 },
    },
    {
      name: "after the result: the drain",
      state: { ...printed, doneAt: 2_000, lastAt: 3_000 },
      expected: { anchor: 3_000, due: 13_000 },
    },
  ])("$name", ({ state, expected }) => {
    expect(judgedSilence(stateWith(state), withLiveness())).toEqual(expected);
  });
});

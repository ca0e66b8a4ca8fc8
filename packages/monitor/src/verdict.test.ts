import { describe, expect, it } from "vitest";
import { report, stateWith, thresholdsWith } from "./__fixtures__/monitor-states.js";
import { hangDeadline } from "./deadline-rules.js";
import { assess, dueSoftWarning } from "./verdict.js";

// The verdict at a time, from a state built directly. Default thresholds (idle 60 s, tool
// grace 30 s, exit grace 10 s) unless a row says otherwise.

const printed = { lastEventType: "assistant" };
const call = { id: "a", startedAt: 0, limitMs: 40_000 };
const work = { id: "b", since: 0 };
const parkedAt = (at: number) => ({ decision: { at, report: report(false) } });

describe("assess", () => {
  it.each([
    {
      name: "the process exited",
      state: { exited: true },
      options: {},
      now: 1e9,
      expected: { verdict: "ok", kind: "none" },
    },
    {
      name: "paused: silence does not count",
      state: { ...printed, pausedAt: 1 },
      options: {},
      now: 1e6,
      expected: { verdict: "ok", kind: "none" },
    },
    {
      name: "paused with a call open",
      state: { ...printed, pausedAt: 1, calls: [call] },
      options: {},
      now: 1e6,
      expected: { verdict: "waiting", kind: "none" },
    },
    {
      name: "paused past the budget",
      state: { ...printed, pausedAt: 1 },
      options: { maxTurnMs: 5_000 },
      now: 5_000,
      expected: { verdict: "budget", kind: "budget" },
    },
    {
      name: "silent, before the idle timeout",
      state: printed,
      options: {},
      now: 59_999,
      expected: { verdict: "ok", kind: "none", probe: false },
    },
    {
      name: "silent for the idle timeout",
      state: printed,
      options: {},
      now: 60_000,
      expected: { verdict: "hang", kind: "idle" },
    },
    {
      name: "a call within its deadline",
      state: { ...printed, calls: [call] },
      options: {},
      now: 39_999,
      expected: { verdict: "waiting", kind: "none", probe: false },
    },
    {
      name: "a call past its deadline, silent for the grace",
      state: { ...printed, calls: [call] },
      options: {},
      now: 40_000,
      expected: { verdict: "hang", kind: "tool" },
    },
    {
      name: "the budget before the hang",
      state: printed,
      options: { maxTurnMs: 30_000, warnFraction: 0 },
      now: 60_000,
      expected: { verdict: "budget", kind: "budget" },
    },
    {
      name: "the hang and the budget due together: the hang",
      state: printed,
      options: { maxTurnMs: 60_000 },
      now: 60_000,
      expected: { verdict: "hang", kind: "idle" },
    },
    {
      name: "a background wait past its budget",
      state: { ...printed, background: [work] },
      options: {},
      now: 600_000,
      expected: { verdict: "hang", kind: "background" },
    },
    {
      name: "liveness: a background wait past its budget, not sampled since",
      state: { ...printed, background: [work], samples: { lastSampleAt: 300_000 } },
      options: { liveness: {} },
      now: 600_000,
      expected: { verdict: "ok", kind: "none", probe: true },
    },
    {
      name: "liveness: a background wait past its budget, sampled at it",
      state: { ...printed, background: [work], samples: { lastSampleAt: 600_000 } },
      options: { liveness: {} },
      now: 600_000,
      expected: { verdict: "hang", kind: "background" },
    },
    {
      name: "liveness: halfway through the silence, a baseline is wanted",
      state: printed,
      options: { liveness: {} },
      now: 30_000,
      expected: { verdict: "ok", kind: "none", probe: true },
    },
    {
      name: "liveness: before halfway, nothing is wanted",
      state: printed,
      options: { liveness: {} },
      now: 29_999,
      expected: { verdict: "ok", kind: "none", probe: false },
    },
    {
      name: "liveness: an idle hang due, not sampled yet",
      state: { ...printed, samples: { lastSampleAt: 30_000 } },
      options: { liveness: {} },
      now: 60_000,
      expected: { verdict: "ok", kind: "none", probe: true },
    },
    {
      name: "liveness: an idle hang due, the tree parked",
      state: { ...printed, samples: { lastSampleAt: 60_000, ...parkedAt(60_000) } },
      options: { liveness: {} },
      now: 60_000,
      expected: { verdict: "hang", kind: "idle" },
    },
    {
      name: "liveness: a tool hang due, waiting for a second sample",
      state: { ...printed, calls: [call], samples: { lastSampleAt: 40_000, retryAt: 45_000 } },
      options: { liveness: {} },
      now: 40_000,
      expected: { verdict: "waiting", kind: "none", probe: false },
    },
    {
      name: "liveness: a hang waiting on a sample, and the budget due",
      state: { ...printed, samples: { lastSampleAt: 30_000 } },
      options: { liveness: {}, maxTurnMs: 60_000 },
      now: 60_000,
      expected: { verdict: "budget", kind: "budget" },
    },
    {
      name: "after the result, within the exit grace",
      state: { ...printed, doneAt: 1_000 },
      options: {},
      now: 10_999,
      expected: { verdict: "ok", kind: "none", probe: false },
    },
    {
      name: "after the result, past the exit grace",
      state: { ...printed, doneAt: 1_000 },
      options: {},
      now: 11_000,
      expected: { verdict: "linger", kind: "linger" },
    },
    {
      name: "liveness: past the exit grace, not sampled",
      state: { ...printed, doneAt: 1_000, samples: { lastSampleAt: 6_000 } },
      options: { liveness: {} },
      now: 11_000,
      expected: { verdict: "ok", kind: "none", probe: true },
    },
    {
      name: "liveness: past the exit grace, the tree parked",
      state: { ...printed, doneAt: 1_000, samples: { lastSampleAt: 11_000, ...parkedAt(11_000) } },
      options: { liveness: {} },
      now: 11_000,
      expected: { verdict: "linger", kind: "linger" },
    },
    {
      name: "liveness: past the drain allowance, however busy",
      state: { ...printed, doneAt: 0, samples: { workingAt: 299_000, lastSampleAt: 299_000 } },
      options: { liveness: {} },
      now: 300_000,
      expected: { verdict: "linger", kind: "linger" },
    },
  ])("$name: $expected.verdict", ({ state, options, now, expected }) => {
    const { deadline, ...assessment } = assess(stateWith(state), thresholdsWith(options), now);
    expect(assessment).toEqual(expected);
  });

  it("gives the hang deadline it judged against, before the result", () => {
    const state = stateWith({ ...printed, calls: [call] });
    const thresholds = thresholdsWith();
    expect(assess(state, thresholds, 1_000).deadline).toEqual(hangDeadline(state, thresholds));
    expect(assess(stateWith({ doneAt: 0 }), thresholds, 1_000).deadline).toBeUndefined();
  });
});

describe("dueSoftWarning", () => {
  it.each([
    {
      name: "before half of the silence",
      state: printed,
      options: {},
      now: 29_999,
      expected: undefined,
    },
    { name: "at half of the silence", state: printed, options: {}, now: 30_000, expected: 60_000 },
    { name: "just before the hang", state: printed, options: {}, now: 59_999, expected: 60_000 },
    {
      name: "at the hang (a verdict instead)",
      state: printed,
      options: {},
      now: 60_000,
      expected: undefined,
    },
    {
      name: "at the hang, waiting on a sample (too late for a warning)",
      state: printed,
      options: { liveness: {} },
      now: 60_000,
      expected: undefined,
    },
    {
      name: "already given",
      state: { ...printed, warnedFor: 60_000 },
      options: {},
      now: 30_000,
      expected: undefined,
    },
    {
      name: "warnings off",
      state: printed,
      options: { warnFraction: 0 },
      now: 30_000,
      expected: undefined,
    },
    {
      name: "a call running long",
      state: { ...printed, calls: [call] },
      options: {},
      now: 20_000,
      expected: 40_000,
    },
    {
      name: "the budget fired",
      state: printed,
      options: { maxTurnMs: 30_000 },
      now: 30_000,
      expected: undefined,
    },
    {
      name: "paused",
      state: { ...printed, pausedAt: 0 },
      options: {},
      now: 30_000,
      expected: undefined,
    },
    {
      name: "after the result",
      state: { ...printed, doneAt: 0 },
      options: {},
      now: 5_000,
      expected: undefined,
    },
  ])("$name: $expected", ({ state, options, now, expected }) => {
    const built = stateWith(state);
    const thresholds = thresholdsWith(options);
    const due = dueSoftWarning(assess(built, thresholds, now), built, thresholds, now);
    expect(due?.at).toBe(expected);
  });
});

import { describe, expect, it } from "vitest";
import { report, stateWith, thresholdsWith, withLiveness } from "./__fixtures__/monitor-states.js";
import type { Deadline, HangDeadline } from "./deadline-rules.js";
import { gate, isWorking, RETRY_SAMPLE_MS, takeSample, wantsBackgroundSample } from "./liveness.js";
import type { SampleState } from "./monitor-state.js";
import { DEFAULT_LIVENESS, type LivenessThresholds } from "./thresholds.js";
import type { LivenessSignal } from "./types.js";

const liveness: LivenessThresholds = { ...DEFAULT_LIVENESS };

describe("isWorking", () => {
  it.each([
    { name: "5% of a core", cpuMs: 1_500, ioBytes: undefined, expected: true },
    { name: "just under 5% of a core", cpuMs: 1_499, ioBytes: undefined, expected: false },
    { name: "256 bytes a second, no CPU", cpuMs: 0, ioBytes: 7_680, expected: true },
    { name: "just under 256 bytes a second", cpuMs: 0, ioBytes: 7_679, expected: false },
    { name: "no CPU and no byte counts", cpuMs: 0, ioBytes: undefined, expected: false },
    { name: "no CPU and no bytes", cpuMs: 0, ioBytes: 0, expected: false },
  ])("$name over 30 s: $expected", ({ cpuMs, ioBytes, expected }) => {
    expect(isWorking(cpuMs, ioBytes, 30_000, liveness)).toBe(expected);
  });

  it("calls any tree working when the thresholds are 0", () => {
    expect(isWorking(0, undefined, 30_000, { ...liveness, minCpuFraction: 0 })).toBe(true);
  });
});

const sample = (cpuMs: number, ioBytes?: number): LivenessSignal => ({
  type: "liveness",
  cpuMs,
  ...(ioBytes === undefined ? {} : { ioBytes }),
});

describe("takeSample", () => {
  // The silence under judgement: quiet since 0 (the last signal), its verdict due at 60 s.
  const context = { liveness, idleTimeoutMs: 60_000, lastAt: 0, anchor: 0, due: 60_000 };
  it.each([
    {
      name: "liveness off: only noted",
      before: {},
      signal: sample(9_000),
      now: 30_000,
      context: { ...context, liveness: undefined },
      after: { lastSampleAt: 30_000, decision: undefined },
    },
    {
      name: "the first sample: a baseline",
      before: {},
      signal: sample(9_000),
      now: 30_000,
      context,
      after: { lastSampleAt: 30_000, decision: undefined, retryAt: undefined },
    },
    {
      name: "a baseline at the deadline: decide with another sample soon",
      before: {},
      signal: sample(0),
      now: 60_000,
      context,
      after: { lastSampleAt: 60_000, decision: undefined, retryAt: 60_000 + RETRY_SAMPLE_MS },
    },
    {
      name: "a baseline at the deadline, short idle timeout: half of it",
      before: {},
      signal: sample(0),
      now: 4_000,
      context: { ...context, idleTimeoutMs: 4_000, due: 4_000 },
      after: { retryAt: 6_000 },
    },
    {
      name: "a baseline at the deadline, idle timeout 0: 1 ms",
      before: {},
      signal: sample(0),
      now: 0,
      context: { ...context, idleTimeoutMs: 0, due: 0 },
      after: { retryAt: 1 },
    },
    {
      name: "the previous sample was before this silence: a baseline",
      before: { lastSampleAt: 5_000 },
      signal: sample(9_000),
      now: 30_000,
      context: { ...context, anchor: 10_000, lastAt: 10_000 },
      after: { lastSampleAt: 30_000, decision: undefined },
    },
    {
      name: "no time since the previous sample: a baseline",
      before: { lastSampleAt: 30_000 },
      signal: sample(9_000),
      now: 30_000,
      context,
      after: { decision: undefined },
    },
  ])("$name", ({ before, signal, now, context, after }) => {
    const samples = stateWith({ samples: { retryAt: 1, ...before } }).samples;
    takeSample(samples, signal, now, context);
    expect(samples).toMatchObject({ retryAt: undefined, ...after });
    expect(samples.workingAt).toBeUndefined();
  });

  it.each([
    {
      name: "working on CPU",
      signal: sample(3_000),
      report: {
        working: true,
        spanMs: 30_000,
        cpuMs: 3_000,
        quietMs: 60_000,
        message: "quiet for 1m, working: 3.0s CPU in 30.0s",
      },
    },
    {
      name: "working on bytes moved",
      signal: sample(0, 3_200_000),
      report: {
        working: true,
        spanMs: 30_000,
        cpuMs: 0,
        ioBytes: 3_200_000,
        quietMs: 60_000,
        message: "quiet for 1m, working: 0ms CPU, 3.2 MB moved in 30.0s",
      },
    },
    {
      name: "parked",
      signal: sample(10, 0),
      report: {
        working: false,
        spanMs: 30_000,
        cpuMs: 10,
        ioBytes: 0,
        quietMs: 60_000,
        message: "quiet for 1m, parked: 10ms CPU, 0 B moved in 30.0s",
      },
    },
    {
      name: "untrusted numbers, taken as nothing",
      signal: sample(Number.NaN, -1),
      report: {
        working: false,
        spanMs: 30_000,
        cpuMs: 0,
        quietMs: 60_000,
        message: "quiet for 1m, parked: 0ms CPU in 30.0s",
      },
    },
  ])("decides on a second sample in the silence: $name", ({ signal, report }) => {
    const samples: SampleState = stateWith({ samples: { lastSampleAt: 30_000 } }).samples;
    takeSample(samples, signal, 60_000, context);
    expect(samples.decision).toEqual({ at: 60_000, report });
    expect(samples.lastSampleAt).toBe(60_000);
    expect(samples.workingAt).toBe(report.working ? 60_000 : undefined);
    expect(samples.lastWorking).toEqual(report.working ? report : undefined);
  });
});

describe("gate", () => {
  const deadline: Deadline = { kind: "idle", rule: "idle", at: 60_000, anchor: 0, span: 60_000 };
  it.each([
    {
      name: "liveness off",
      now: 60_000,
      capAt: undefined,
      samples: {},
      on: undefined,
      step: "fire",
    },
    {
      name: "no sample yet",
      now: 60_000,
      capAt: 1_800_000,
      samples: {},
      on: liveness,
      step: "probe",
    },
    {
      name: "a sample found the tree parked at the deadline",
      now: 60_000,
      capAt: 1_800_000,
      samples: { decision: { at: 60_000, report: report(false) } },
      on: liveness,
      step: "fire",
    },
    {
      name: "the tree was found parked before the deadline",
      now: 60_000,
      capAt: 1_800_000,
      samples: { decision: { at: 59_999, report: report(false) } },
      on: liveness,
      step: "probe",
    },
    {
      name: "the tree was found working",
      now: 60_000,
      capAt: 1_800_000,
      samples: { decision: { at: 60_000, report: report(true) } },
      on: liveness,
      step: "probe",
    },
    {
      name: "a second sample is due later",
      now: 60_000,
      capAt: 1_800_000,
      samples: { retryAt: 65_000 },
      on: liveness,
      step: "wait",
    },
    {
      name: "the second sample is due now",
      now: 65_000,
      capAt: 1_800_000,
      samples: { retryAt: 65_000 },
      on: liveness,
      step: "probe",
    },
    {
      name: "past the cap, however busy",
      now: 1_800_000,
      capAt: 1_800_000,
      samples: { decision: { at: 1_800_000, report: report(true) }, retryAt: 1_805_000 },
      on: liveness,
      step: "fire",
    },
  ])("$name: $step", ({ now, capAt, samples, on, step }) => {
    expect(gate(deadline, capAt, now, stateWith({ samples }).samples, on)).toBe(step);
  });
});

describe("wantsBackgroundSample", () => {
  const deadline: HangDeadline = {
    kind: "background",
    rule: "background-wait",
    at: 600_000,
    anchor: 0,
    span: 600_000,
  };
  it.each([
    { name: "liveness off", thresholds: thresholdsWith(), samples: {}, expected: false },
    { name: "no sample yet", thresholds: withLiveness(), samples: {}, expected: true },
    {
      name: "the last sample before the deadline",
      thresholds: withLiveness(),
      samples: { lastSampleAt: 599_999 },
      expected: true,
    },
    {
      name: "a sample at the deadline",
      thresholds: withLiveness(),
      samples: { lastSampleAt: 600_000 },
      expected: false,
    },
  ])("$name: $expected", ({ thresholds, samples, expected }) => {
    expect(
      wantsBackgroundSample(deadline, stateWith({ samples }).samples, thresholds.liveness),
    ).toBe(expected);
  });
});

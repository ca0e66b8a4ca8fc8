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

describe("takeSample over a span too short to tell", () => {
  // Quiet since 0, the verdict due at 1 s (--idle-timeout 1s): 5% of a core is working.
  const context = { liveness, idleTimeoutMs: 1_000, lastAt: 0, anchor: 0, due: 1_000 };
  const of = (cpuMs: number, pids = [7]): LivenessSignal => ({ type: "liveness", cpuMs, pids });

  it.each([
    { name: "no tick in 500 ms: parked", cpuMs: 0, pids: [7], decided: false },
    { name: "one tick in 500 ms: parked (under 20 ms used)", cpuMs: 10, pids: [7], decided: false },
    { name: "three ticks in 500 ms: working", cpuMs: 30, pids: [7], decided: true },
    { name: "two ticks in 500 ms: undecided", cpuMs: 20, pids: [7], decided: undefined },
    {
      name: "no tick over three processes: undecided",
      cpuMs: 0,
      pids: [7, 8, 9],
      decided: undefined,
    },
  ])("$name", ({ cpuMs, pids, decided }) => {
    const samples = stateWith({ samples: { lastSampleAt: 500 } }).samples;
    takeSample(samples, of(cpuMs, pids), 1_000, context);
    expect(samples.decision?.report.working).toBe(decided);
    if (decided === undefined) {
      expect(samples.undecided).toEqual({
        since: 500,
        cpuMs,
        ioBytes: undefined,
        processes: pids.length,
        unmeasured: false,
      });
      // Sampled again once the span can tell: (cpu + a tick per process) / 5%, from the baseline.
      expect(samples.retryAt).toBe(500 + Math.floor((cpuMs + 10 * pids.length) / 0.05) + 1);
    } else {
      expect(samples.undecided).toBeUndefined();
    }
  });

  it("judges the undecided span with the next one, CPU and bytes summed", () => {
    const samples = stateWith({
      samples: {
        lastSampleAt: 1_000,
        undecided: { since: 500, cpuMs: 20, ioBytes: 40, processes: 1, unmeasured: false },
      },
    }).samples;
    takeSample(samples, { type: "liveness", cpuMs: 0, ioBytes: 10, pids: [7] }, 1_200, context);
    // 20 ms in 700 ms, under 35 ms even with a tick more: parked, over both spans.
    expect(samples.decision?.report).toMatchObject({
      working: false,
      cpuMs: 20,
      ioBytes: 50,
      spanMs: 700,
    });
    expect(samples.undecided).toBeUndefined();
    expect(samples.retryAt).toBeUndefined();
  });

  it("says a tree it could not look at is taken as parked, with no figure", () => {
    const samples = stateWith({ samples: { lastSampleAt: 0 } }).samples;
    takeSample(samples, { type: "liveness", cpuMs: 0, unmeasured: true }, 60_000, context);
    expect(samples.decision?.report).toMatchObject({ working: false, unmeasured: true });
    expect(samples.decision?.report.message).toContain(
      "the agent's processes could not be looked at: taken as parked",
    );
    expect(samples.decision?.report.message).not.toContain("CPU");
  });

  it("drops an undecided span that began before the silence: the sample is a baseline", () => {
    const samples = stateWith({
      samples: {
        lastSampleAt: 1_000,
        undecided: { since: 500, cpuMs: 20, ioBytes: undefined, processes: 1, unmeasured: false },
      },
    }).samples;
    takeSample(samples, of(0), 1_500, { ...context, lastAt: 1_100, anchor: 1_100, due: 2_100 });
    expect(samples.decision).toBeUndefined();
    expect(samples.undecided).toBeUndefined();
  });

  it("asks again no later than the retry delay when the span that can tell is far", () => {
    const samples = stateWith({ samples: { lastSampleAt: 59_000 } }).samples;
    const many = Array.from({ length: 1_000 }, (_, index) => index + 1);
    takeSample(samples, of(0, many), 60_000, { ...context, idleTimeoutMs: 60_000, due: 60_000 });
    expect(samples.decision).toBeUndefined();
    expect(samples.retryAt).toBe(60_000 + RETRY_SAMPLE_MS);
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

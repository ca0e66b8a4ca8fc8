import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { report, stateWith, thresholdsWith } from "./__fixtures__/monitor-states.js";
import {
  applySignal,
  backgroundDetails,
  closeCall,
  createMonitorState,
  dropEndedBackgroundWork,
  finite,
  lastToExpire,
  type OpenCall,
  openCall,
  openCallDetails,
  pauseOutput,
  phaseOf,
  quietAnchor,
  quietButWorking,
  resumeOutput,
} from "./monitor-state.js";

describe("applySignal", () => {
  const thresholds = thresholdsWith({ toolGraceMs: 30_000 });

  it.each([
    {
      name: "a session id",
      signal: { type: "session", sessionId: "s-1" },
      fields: { sessionId: "s-1", lastEventType: "session", lastAt: 5_000 },
    },
    {
      name: "activity with its phase and event",
      signal: { type: "activity", phase: "thinking", eventType: "thinking/delta" },
      fields: { lastPhase: "thinking", lastEventType: "thinking/delta" },
    },
    { name: "the result", signal: { type: "done" }, fields: { doneAt: 5_000 } },
    { name: "the exit", signal: { type: "exit" }, fields: { exited: true } },
  ] as const)("takes in $name", ({ signal, fields }) => {
    const state = stateWith({ lastAt: 1_000 });
    expect(applySignal(state, thresholds, signal, 5_000)).toBeUndefined();
    expect(state).toMatchObject(fields);
  });

  it("never moves the last signal back in time", () => {
    const state = stateWith({ lastAt: 9_000 });
    applySignal(state, thresholds, { type: "activity" }, 5_000);
    expect(state.lastAt).toBe(9_000);
  });

  it.each([
    { name: "a declared timeout", timeoutMs: 10_000, kind: "shell", limitMs: 40_000 },
    { name: "its kind's allowance", timeoutMs: undefined, kind: "mcp", limitMs: 630_000 },
    {
      name: "the idle timeout for other kinds",
      timeoutMs: undefined,
      kind: "read",
      limitMs: 90_000,
    },
    {
      name: "a kind named like an object key",
      timeoutMs: undefined,
      kind: "constructor",
      limitMs: 90_000,
    },
    { name: "an untrusted timeout ignored", timeoutMs: Number.NaN, kind: "read", limitMs: 90_000 },
  ])("opens a tool call with $name: $limitMs ms", ({ timeoutMs, kind, limitMs }) => {
    const state = stateWith();
    const signal = { type: "toolStart" as const, id: "a", kind, label: "x", timeoutMs };
    expect(applySignal(state, thresholds, signal, 2_000)).toBeUndefined();
    expect(state.openCalls.get("a")).toEqual({
      id: "a",
      kind,
      label: "x",
      startedAt: 2_000,
      timeoutMs,
      limitMs,
    });
  });

  it.each([
    {
      name: "a duplicate start restarts the call's clock",
      state: { calls: [{ id: "a", startedAt: 0, limitMs: 1 }] },
      signal: { type: "toolStart", id: "a", kind: "shell" },
      oddity: { code: "duplicate-start", id: "a" },
      open: ["a"],
    },
    {
      name: "a background start is never waited on",
      state: {},
      signal: { type: "toolStart", id: "a", kind: "shell", background: true },
      oddity: undefined,
      open: [],
    },
    {
      name: "an end closes the call",
      state: { calls: [{ id: "a", startedAt: 0, limitMs: 1 }] },
      signal: { type: "toolEnd", id: "a" },
      oddity: undefined,
      open: [],
    },
    {
      name: "an end that never started",
      state: {},
      signal: { type: "toolEnd", id: "z" },
      oddity: { code: "unmatched-end", id: "z" },
      open: [],
    },
    {
      name: "a signal after the result (once)",
      state: { doneAt: 0, calls: [{ id: "a", startedAt: 0, limitMs: 1 }] },
      signal: { type: "toolEnd", id: "a" },
      oddity: { code: "after-done" },
      open: ["a"],
    },
    {
      name: "a second signal after the result",
      state: { doneAt: 0, warnedAfterDone: true },
      signal: { type: "activity" },
      oddity: undefined,
      open: [],
    },
    {
      name: "any signal after the exit",
      state: { exited: true },
      signal: { type: "toolStart", id: "a", kind: "shell" },
      oddity: undefined,
      open: [],
    },
  ] as const)("$name", ({ state: spec, signal, oddity, open }) => {
    const state = stateWith(spec);
    expect(applySignal(state, thresholds, signal, 3_000)).toEqual(oddity);
    expect([...state.openCalls.keys()]).toEqual(open);
  });

  it("says nothing of signals after the result with liveness on: the agent is draining", () => {
    const state = stateWith({ doneAt: 0 });
    expect(
      applySignal(state, thresholdsWith({ liveness: {} }), { type: "activity" }, 1),
    ).toBeUndefined();
    expect(state.warnedAfterDone).toBe(false);
  });

  it("moves a call that ended in the background to background work", () => {
    const state = stateWith({
      calls: [{ id: "a", startedAt: 0, limitMs: 1, label: "npm run dev" }],
    });
    const signal = { type: "toolEnd" as const, id: "a", background: { pid: 42, aliases: ["s1"] } };
    expect(applySignal(state, thresholds, signal, 7_000)).toBeUndefined();
    expect(state.openCalls.size).toBe(0);
    expect(state.backgroundWork.get("a")).toEqual({
      id: "a",
      aliases: ["s1"],
      pid: 42,
      label: "npm run dev",
      since: 7_000,
    });
  });

  it.each([
    { name: "by id", id: "a", left: ["b"] },
    { name: "by alias", id: "s1", left: ["b"] },
    { name: "all of it", id: undefined, left: [] },
    { name: "nothing for an unknown id", id: "x", left: ["a", "b"] },
  ])("ends background work $name", ({ id, left }) => {
    const state = stateWith({
      background: [
        { id: "a", since: 0, aliases: ["s1"] },
        { id: "b", since: 0 },
      ],
    });
    applySignal(state, thresholds, { type: "backgroundEnd", id }, 1);
    expect([...state.backgroundWork.keys()]).toEqual(left);
  });
});

describe("dropEndedBackgroundWork", () => {
  it("drops the work whose process is gone, and keeps work with no pid", () => {
    const state = stateWith({
      background: [
        { id: "a", since: 0, pid: 10 },
        { id: "b", since: 0, pid: 11 },
        { id: "c", since: 0 },
      ],
    });
    dropEndedBackgroundWork(state, [11, 12]);
    expect([...state.backgroundWork.keys()]).toEqual(["b", "c"]);
  });
});

describe("pauseOutput and resumeOutput", () => {
  it.each([
    {
      name: "silence counts from the resume",
      state: { lastAt: 1_000 },
      expected: { lastAt: 9_000 },
    },
    {
      name: "the time to exit leaves out the pause",
      state: { lastAt: 1_000, doneAt: 1_000 },
      expected: { doneAt: 5_000, lastAt: 9_000 },
    },
  ])("$name", ({ state: spec, expected }) => {
    const state = stateWith(spec);
    pauseOutput(state, 5_000);
    pauseOutput(state, 6_000); // the first pause counts
    expect(state.pausedAt).toBe(5_000);
    resumeOutput(state, 9_000);
    expect(state).toMatchObject({ pausedAt: undefined, ...expected });
  });

  it("ignores a resume without a pause", () => {
    const state = stateWith({ lastAt: 1_000 });
    resumeOutput(state, 9_000);
    expect(state.lastAt).toBe(1_000);
  });
});

describe("quietAnchor and quietButWorking", () => {
  it.each([
    { name: "never sampled", samples: {}, anchor: 10_000, working: false },
    {
      name: "working before the last signal",
      samples: { workingAt: 5_000, lastWorking: report(true) },
      anchor: 10_000,
      working: false,
    },
    {
      name: "working since",
      samples: { workingAt: 20_000, lastWorking: report(true) },
      anchor: 20_000,
      working: true,
    },
  ])("$name: quiet since $anchor", ({ samples, anchor, working }) => {
    const state = stateWith({ lastAt: 10_000, samples });
    expect(quietAnchor(state)).toBe(anchor);
    expect(quietButWorking(state) !== undefined).toBe(working);
  });
});

describe("phaseOf", () => {
  const call = { id: "a", startedAt: 0, limitMs: 1 };
  const work = { id: "b", since: 0 };
  it.each([
    { state: {}, phase: "starting" },
    { state: { lastEventType: "x" }, phase: "working" },
    { state: { lastEventType: "x", lastPhase: "thinking" }, phase: "thinking" },
    { state: { lastEventType: "x", background: [work] }, phase: "background" },
    { state: { lastEventType: "x", background: [work], calls: [call] }, phase: "tool" },
    { state: { calls: [call], doneAt: 1 }, phase: "done" },
    { state: { doneAt: 1, exited: true }, phase: "exited" },
  ] as const)("$phase", ({ state, phase }) => {
    expect(phaseOf(stateWith(state))).toBe(phase);
  });
});

describe("openCallDetails and backgroundDetails", () => {
  it("give each call's time used and left, and each piece of background work's time", () => {
    const state = stateWith({
      calls: [
        {
          id: "a",
          kind: "shell",
          label: "make",
          startedAt: 1_000,
          limitMs: 40_000,
          timeoutMs: 10_000,
        },
        { id: "b", kind: "read", startedAt: 500.4, limitMs: 90_000 },
      ],
      background: [
        { id: "c", since: 2_000, pid: 3, label: "dev" },
        { id: "d", since: 0 },
      ],
    });
    expect(openCallDetails(state, 50_000)).toEqual([
      {
        id: "a",
        kind: "shell",
        label: "make",
        elapsedMs: 49_000,
        timeoutMs: 10_000,
        limitMs: 40_000,
        remainingMs: -9_000,
      },
      { id: "b", kind: "read", elapsedMs: 49_500, limitMs: 90_000, remainingMs: 40_500 },
    ]);
    expect(backgroundDetails(state, 50_000)).toEqual([
      { id: "c", pid: 3, label: "dev", elapsedMs: 48_000 },
      { id: "d", elapsedMs: 50_000 },
    ]);
  });
});

describe("finite", () => {
  it.each([
    [0, 0],
    [12.5, 12.5],
    [-1, undefined],
    [Number.NaN, undefined],
    [Number.POSITIVE_INFINITY, undefined],
    [undefined, undefined],
  ])("%s → %s", (value, expected) => {
    expect(finite(value)).toBe(expected);
  });
});

describe("lastToExpire", () => {
  /** What the tool rule used to find by looking at every open call: the first of the latest. */
  const byLooking = (calls: Iterable<OpenCall>): OpenCall | undefined => {
    let latest: OpenCall | undefined;
    for (const call of calls) {
      if (!latest || call.startedAt + call.limitMs > latest.startedAt + latest.limitMs)
        latest = call;
    }
    return latest;
  };

  it("is the open call whose allowance runs out last, the first started among equals (property)", () => {
    const step = fc.record({
      close: fc.boolean(),
      id: fc.constantFrom("a", "b", "c", "d", "e", "f"),
      startedAt: fc.nat(20),
      limitMs: fc.constantFrom(1, 5, 10, 20),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200 }), (steps) => {
        const state = createMonitorState(0);
        for (const { close, id, startedAt, limitMs } of steps) {
          if (close) closeCall(state, id);
          else
            openCall(state, {
              id,
              kind: "shell",
              label: undefined,
              startedAt,
              timeoutMs: undefined,
              limitMs,
            });
          expect(lastToExpire(state)).toBe(byLooking(state.openCalls.values()));
        }
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    );
  });

  it("keeps its queue bounded while calls come and go under one that stays open", () => {
    const state = createMonitorState(0);
    const call = (id: string, limitMs: number): OpenCall => ({
      id,
      kind: "shell",
      label: undefined,
      startedAt: 0,
      timeoutMs: undefined,
      limitMs,
    });
    openCall(state, call("long", 1_000_000));
    for (let index = 0; index < 10_000; index += 1) {
      openCall(state, call(`short-${index}`, 10));
      closeCall(state, `short-${index}`);
    }
    expect(lastToExpire(state)?.id).toBe("long");
    expect(state.expiries.heap.length).toBeLessThan(100);
  });
});

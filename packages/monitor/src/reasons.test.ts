import { describe, expect, it } from "vitest";
import { report, stateWith, thresholdsWith, withLiveness } from "./__fixtures__/monitor-states.js";
import {
  describeBackground,
  describeCalls,
  livenessNote,
  livenessReport,
  noticeFor,
  reasonFor,
  softWarningFor,
} from "./reasons.js";

describe("describeCalls", () => {
  it.each([
    { name: "none", calls: [], text: "" },
    {
      name: "one with a label",
      calls: [
        {
          id: "a",
          kind: "shell",
          label: "sleep 5",
          elapsedMs: 40_000,
          limitMs: 40_000,
          remainingMs: 0,
        },
      ],
      text: 'shell "sleep 5" 40.0s of 40.0s',
    },
    {
      name: "two, one without a label",
      calls: [
        { id: "a", kind: "read", elapsedMs: 1_500, limitMs: 90_000, remainingMs: 88_500 },
        {
          id: "b",
          kind: "mcp",
          label: "x/y",
          elapsedMs: 120_000,
          limitMs: 630_000,
          remainingMs: 510_000,
        },
      ],
      text: 'read 1.5s of 1m 30s; mcp "x/y" 2m of 10m 30s',
    },
  ])("$name", ({ calls, text }) => {
    expect(describeCalls(calls)).toBe(text);
  });
});

describe("describeBackground", () => {
  it.each([
    {
      name: "by label and pid",
      work: [{ id: "b", label: "npm run dev", pid: 42, elapsedMs: 1 }],
      text: '"npm run dev" (pid 42)',
    },
    { name: "by id", work: [{ id: "b", elapsedMs: 1 }], text: "b" },
    {
      name: "several",
      work: [
        { id: "b", pid: 7, elapsedMs: 1 },
        { id: "c", label: "make", elapsedMs: 1 },
      ],
      text: 'b (pid 7), "make"',
    },
  ])("$name", ({ work, text }) => {
    expect(describeBackground(work)).toBe(text);
  });
});

describe("livenessReport", () => {
  it.each([
    {
      name: "working, CPU only",
      input: [true, 30_000, 4_100, undefined, 120_000] as Parameters<typeof livenessReport>,
      expected: {
        working: true,
        spanMs: 30_000,
        cpuMs: 4_100,
        quietMs: 120_000,
        message: "quiet for 2m, working: 4.1s CPU in 30.0s",
      },
    },
    {
      name: "parked, with bytes, rounded",
      input: [false, 30_000.4, 12.6, 99.5, 60_000.2] as Parameters<typeof livenessReport>,
      expected: {
        working: false,
        spanMs: 30_000,
        cpuMs: 13,
        ioBytes: 100,
        quietMs: 60_000,
        message: "quiet for 1m, parked: 13ms CPU, 100 B moved in 30.0s",
      },
    },
  ])("$name", ({ input, expected }) => {
    expect(livenessReport(...input)).toEqual(expected);
  });
});

describe("livenessNote", () => {
  const parked = report(false, { cpuMs: 12, ioBytes: 0, spanMs: 30_000 });
  it.each([
    { name: "liveness off", state: {}, liveness: false, now: 60_000, note: "" },
    {
      name: "the tree found parked in this silence",
      state: { samples: { decision: { at: 60_000, report: parked } } },
      liveness: true,
      now: 60_000,
      note: "; the agent's processes were idle too (12ms CPU, 0 B moved in 30.0s)",
    },
    {
      name: "found parked before this silence: nothing to say",
      state: { lastAt: 70_000, samples: { decision: { at: 60_000, report: parked } } },
      liveness: true,
      now: 80_000,
      note: "",
    },
    {
      name: "after the result, still busy",
      state: { doneAt: 0 },
      liveness: true,
      now: 300_000,
      note: "; still busy past the 5m allowed for draining",
    },
    {
      name: "busy but silent past max quiet",
      state: {},
      liveness: true,
      now: 1_800_000,
      note: "; busy but silent past the 30m allowed for quiet work",
    },
    { name: "busy, within max quiet", state: {}, liveness: true, now: 1_799_999, note: "" },
  ])("$name", ({ state, liveness, now, note }) => {
    const thresholds = liveness ? withLiveness() : thresholdsWith();
    expect(livenessNote(stateWith(state), thresholds, now)).toBe(note);
  });
});

describe("reasonFor", () => {
  const call = {
    id: "a",
    kind: "shell",
    label: "sleep 99",
    startedAt: 0,
    limitMs: 40_000,
    timeoutMs: 10_000,
  };
  const printed = { lastEventType: "tool_call/started", sessionId: "s-1" };
  it.each([
    {
      name: "idle, nothing printed",
      kind: "idle",
      verdict: "hang",
      state: {},
      now: 60_000,
      message: "no output for 1m with no tool running (no output yet)",
    },
    {
      name: "idle",
      kind: "idle",
      verdict: "hang",
      state: { ...printed, lastAt: 1_000 },
      now: 61_000,
      message: "no output for 1m with no tool running (last event: tool_call/started)",
    },
    {
      name: "one tool call",
      kind: "tool",
      verdict: "hang",
      state: { ...printed, calls: [call] },
      now: 40_000,
      message:
        '1 tool call past its deadline, silent for 40.0s: shell "sleep 99" 40.0s of 40.0s (last event: tool_call/started)',
    },
    {
      name: "two tool calls",
      kind: "tool",
      verdict: "hang",
      state: { ...printed, calls: [call, { ...call, id: "b", label: undefined }] },
      now: 40_000,
      message:
        '2 tool calls past their deadlines, silent for 40.0s: shell "sleep 99" 40.0s of 40.0s; shell 40.0s of 40.0s (last event: tool_call/started)',
    },
    {
      name: "background",
      kind: "background",
      verdict: "hang",
      state: { ...printed, background: [{ id: "b", since: 0, pid: 42, label: "npm run dev" }] },
      now: 600_000,
      message:
        'waited 10m on background work, past its budget of 10m: "npm run dev" (pid 42) (last event: tool_call/started)',
    },
    {
      name: "linger",
      kind: "linger",
      verdict: "linger",
      state: { ...printed, doneAt: 5_000 },
      now: 15_000,
      message: "process still running 10.0s after its result",
    },
    {
      name: "budget",
      kind: "budget",
      verdict: "budget",
      state: { ...printed, startedAt: 0 },
      now: 90_000,
      message: "turn ran 1m 30s, past its budget of 1m 30s (last event: tool_call/started)",
    },
    {
      name: "waiting",
      kind: "none",
      verdict: "waiting",
      state: { ...printed, calls: [call] },
      now: 1_000,
      message: 'waiting on shell "sleep 99" 1.0s of 40.0s',
    },
    {
      name: "exited",
      kind: "none",
      verdict: "ok",
      state: { exited: true },
      now: 1,
      message: "process exited",
    },
    {
      name: "completed",
      kind: "none",
      verdict: "ok",
      state: { doneAt: 0 },
      now: 1,
      message: "turn completed",
    },
    {
      name: "quiet",
      kind: "none",
      verdict: "ok",
      state: printed,
      now: 2_500,
      message: "quiet for 2.5s (last event: tool_call/started)",
    },
  ] as const)("$name: $message", ({ kind, verdict, state, now, message }) => {
    const reason = reasonFor(
      kind,
      verdict,
      stateWith(state),
      thresholdsWith({ maxTurnMs: 90_000 }),
      now,
    );
    expect(reason.message).toBe(message);
    expect(reason.kind).toBe(kind);
  });

  it("carries the structure: silence, open calls, background work, the last sample, the session", () => {
    const decision = { at: 40_000, report: report(false) };
    const state = stateWith({
      ...printed,
      lastAt: 1_000,
      calls: [call],
      background: [{ id: "b", since: 0, pid: 42 }],
      samples: { decision },
    });
    expect(reasonFor("tool", "hang", state, withLiveness(), 40_000)).toEqual({
      kind: "tool",
      idleMs: 39_000,
      openCallCount: 1,
      openCalls: [
        {
          id: "a",
          kind: "shell",
          label: "sleep 99",
          elapsedMs: 40_000,
          timeoutMs: 10_000,
          limitMs: 40_000,
          remainingMs: 0,
        },
      ],
      message: expect.stringContaining("the agent's processes were idle too"),
      liveness: decision.report,
      lastEventType: "tool_call/started",
      sessionId: "s-1",
    });
    expect(reasonFor("background", "hang", state, withLiveness(), 40_000)).toMatchObject({
      background: [{ id: "b", pid: 42, elapsedMs: 40_000 }],
    });
    expect(reasonFor("linger", "linger", state, withLiveness(), 40_000).liveness).toBe(
      decision.report,
    );
    expect(reasonFor("budget", "budget", state, withLiveness(), 40_000).liveness).toBeUndefined();
  });
});

describe("many open calls", () => {
  // An agent can leave any number of calls open: 100,000 made each message and record megabytes.
  const calls = Array.from({ length: 25 }, (_, index) => ({
    id: `c${index}`,
    startedAt: 0,
    // c24 and c20 are past their deadline; the others have a minute, the earliest a little less.
    limitMs: index === 24 ? 5_000 : index === 20 ? 8_000 : 60_000 + index,
  }));

  it("a reason names the ten nearest or past their deadline, in the order they started, and counts all", () => {
    const state = stateWith({ lastAt: 0, calls });
    const reason = reasonFor("tool", "hang", state, thresholdsWith(), 30_000);
    expect(reason.openCallCount).toBe(25);
    expect(reason.openCalls.map((call) => call.id)).toEqual([
      ...["c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"],
      ...["c20", "c24"],
    ]);
    expect(reason.message).toMatch(/^25 tool calls past their deadlines, silent for 30\.0s: /);
    expect(reason.message).toContain(
      "shell 30.0s of 8.0s; shell 30.0s of 5.0s; and 15 more (no output yet)",
    );
  });

  it("background work likewise: the ten oldest, and a count", () => {
    const background = Array.from({ length: 12 }, (_, index) => ({ id: `b${index}`, since: 0 }));
    const state = stateWith({ lastAt: 0, background });
    const reason = reasonFor("background", "hang", state, thresholdsWith(), 30_000);
    expect(reason.background?.map((work) => work.id)).toEqual(
      background.slice(0, 10).map((work) => work.id),
    );
    expect(reason.message).toContain("b8, b9, and 2 more (no output yet)");
  });

  it("a warning too", () => {
    const warning = softWarningFor("tool", 60_000, stateWith({ calls }), 30_000);
    expect(warning.message.split("; ")).toHaveLength(12);
    expect(warning.message).toMatch(/; and 15 more$/);
  });
});

describe("softWarningFor", () => {
  it.each([
    {
      kind: "idle",
      state: { lastAt: 0 },
      message: "quiet for 30.0s; hang in 30.0s if nothing arrives",
    },
    {
      kind: "tool",
      state: { calls: [{ id: "a", kind: "mcp", startedAt: 0, limitMs: 630_000 }] },
      message: "tool call running long; hang in 30.0s: mcp 30.0s of 10m 30s",
    },
    {
      kind: "background",
      state: { background: [{ id: "b", since: 0, pid: 7 }] },
      message: "waiting on background work for 30.0s: b (pid 7); verdict in 30.0s if it goes on",
    },
  ] as const)("$kind: $message", ({ kind, state, message }) => {
    expect(softWarningFor(kind, 60_000, stateWith(state), 30_000)).toEqual({
      kind,
      firesInMs: 30_000,
      message,
    });
  });

  it("says calls, plural, for parallel ones", () => {
    const calls = [
      { id: "a", startedAt: 0, limitMs: 60_000 },
      { id: "b", startedAt: 0, limitMs: 60_000 },
    ];
    expect(softWarningFor("tool", 60_000, stateWith({ calls }), 30_000).message).toMatch(
      /^tool calls running long/,
    );
  });
});

describe("noticeFor", () => {
  it.each([
    {
      oddity: { code: "after-done" },
      expected: { code: "after-done", message: "assistant after the result; ignored" },
    },
    {
      oddity: { code: "duplicate-start", id: "a" },
      expected: { code: "duplicate-start", id: "a", message: "tool call started twice" },
    },
    {
      oddity: { code: "unmatched-end", id: "z" },
      expected: { code: "unmatched-end", id: "z", message: "tool call ended that never started" },
    },
  ] as const)("$oddity.code", ({ oddity, expected }) => {
    expect(noticeFor(oddity, "assistant")).toEqual(expected);
  });
});

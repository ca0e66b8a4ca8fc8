import { describe, expect, it } from "vitest";
import { createMonitor, DEFAULT_TOOL_TIMEOUTS } from "./monitor.js";
import type { MonitorOptions, MonitorSignal } from "./types.js";

const S = 1_000;

/** A monitor on a hand-driven clock that starts at t=0 and ignores soft warnings. */
function fixture(options: MonitorOptions = {}) {
  let now = 0;
  const monitor = createMonitor({ warnFraction: 0, ...options, now: () => now });
  return {
    monitor,
    at(ms: number) {
      now = ms;
    },
    send(ms: number, signal: MonitorSignal) {
      now = ms;
      return monitor.observe(signal);
    },
    verdict(ms: number) {
      now = ms;
      return monitor.check().verdict;
    },
  };
}

const thinking: MonitorSignal = {
  type: "activity",
  eventType: "thinking/completed",
  phase: "thinking",
};
const shell = (id: string, timeoutMs?: number): MonitorSignal => ({
  type: "toolStart",
  id,
  kind: "shell",
  label: `sleep ${id}`,
  eventType: "tool_call/started",
  ...(timeoutMs === undefined ? {} : { timeoutMs }),
});
const end = (id: string): MonitorSignal => ({
  type: "toolEnd",
  id,
  eventType: "tool_call/completed",
});

describe("createMonitor", () => {
  it("reports an idle hang after idleTimeout of silence with no tool open", () => {
    const f = fixture();
    f.send(1 * S, thinking);
    expect(f.verdict(60 * S)).toBe("ok");
    f.at(61 * S);
    const { verdict, reason } = f.monitor.check();
    expect(verdict).toBe("hang");
    expect(reason).toMatchObject({
      kind: "idle",
      idleMs: 60 * S,
      openCallCount: 0,
      lastEventType: "thinking/completed",
      openCalls: [],
    });
    expect(reason.message).toBe(
      "no output for 1m with no tool running (last event: thinking/completed)",
    );
  });

  it("counts silence from the start of the process when nothing is ever printed", () => {
    const f = fixture({ startedAt: 500 });
    expect(f.monitor.nextDeadline()).toBe(60_500);
    expect(f.verdict(60_499)).toBe("ok");
    f.at(60_500);
    const { verdict, reason } = f.monitor.check();
    expect(verdict).toBe("hang");
    expect(reason.message).toBe("no output for 1m with no tool running (no output yet)");
    expect(reason.lastEventType).toBeUndefined();
  });

  it("waits on a sequential tool call that finishes within its declared timeout", () => {
    const f = fixture();
    f.send(0, shell("a", 10 * S));
    expect(f.verdict(39 * S)).toBe("waiting");
    f.send(39 * S, end("a"));
    expect(f.verdict(98 * S)).toBe("ok");
    expect(f.verdict(99 * S)).toBe("hang");
  });

  it("does not hang on a long tool call that is within its declared timeout (AC4)", () => {
    const f = fixture();
    f.send(0, shell("long", 120 * S));
    // 90 s of silence is past the idle timeout but well inside 120 s + 30 s grace.
    expect(f.verdict(90 * S)).toBe("waiting");
    expect(f.verdict(149_999)).toBe("waiting");
    expect(f.verdict(150 * S)).toBe("hang");
  });

  it("reports a tool-timeout hang at exactly declared timeout + grace (AC3)", () => {
    const f = fixture();
    f.send(2 * S, shell("x", 10 * S));
    expect(f.monitor.nextDeadline()).toBe(42 * S);
    expect(f.verdict(42 * S - 1)).toBe("waiting");
    f.at(42 * S);
    const { verdict, reason } = f.monitor.check();
    expect(verdict).toBe("hang");
    expect(reason).toMatchObject({ kind: "tool", openCallCount: 1, idleMs: 40 * S });
    expect(reason.openCalls).toEqual([
      {
        id: "x",
        kind: "shell",
        label: "sleep x",
        elapsedMs: 40 * S,
        timeoutMs: 10 * S,
        limitMs: 40 * S,
        remainingMs: 0,
      },
    ]);
    expect(reason.message).toBe(
      '1 tool call past its deadline, silent for 40.0s: shell "sleep x" 40.0s of 40.0s (last event: tool_call/started)',
    );
  });

  it("measures each parallel call from its own start and waits until all are expired (AC5)", () => {
    const f = fixture();
    f.send(0, shell("a", 10 * S)); // expires at 40 s
    f.send(8 * S, shell("b", 10 * S)); // expires at 48 s
    f.send(20 * S, end("a")); // one finishes before the other
    expect(f.verdict(47 * S)).toBe("waiting");
    expect(f.monitor.check().reason.openCalls.map((call) => call.id)).toEqual(["b"]);
    f.send(47 * S, end("b"));
    expect(f.verdict(100 * S)).toBe("ok");
  });

  it("keeps waiting while one parallel call is expired and another is not", () => {
    const f = fixture();
    f.send(0, shell("short", 1 * S)); // expires at 31 s
    f.send(0, shell("long", 100 * S)); // expires at 130 s
    expect(f.verdict(60 * S)).toBe("waiting");
    const expired = f.monitor.check().reason.openCalls.find((call) => call.id === "short");
    expect(expired?.remainingMs).toBe(-29 * S);
    expect(f.verdict(130 * S)).toBe("hang");
  });

  it("does not call an expired tool a hang while the stream is still talking", () => {
    const f = fixture();
    f.send(0, shell("stale", 1 * S)); // expires at 31 s, but a line arrives every 30 s
    for (let t = 30 * S; t <= 120 * S; t += 30 * S) {
      f.send(t, { type: "activity", eventType: "thinking/delta" });
      expect(f.verdict(t + 29 * S)).toBe("waiting");
    }
    expect(f.monitor.nextDeadline()).toBe(150 * S);
    expect(f.verdict(150 * S)).toBe("hang");
  });

  it("uses per-kind defaults for calls without a declared timeout", () => {
    const f = fixture({ toolTimeouts: { grep: 5 * S } });
    f.send(0, { type: "toolStart", id: "m", kind: "mcp" });
    f.send(0, { type: "toolStart", id: "g", kind: "grep" });
    f.send(0, { type: "toolStart", id: "r", kind: "read" });
    const limits = Object.fromEntries(
      f.monitor.check().reason.openCalls.map((call) => [call.id, call.limitMs]),
    );
    expect(limits).toEqual({
      m: DEFAULT_TOOL_TIMEOUTS.mcp! + 30 * S,
      g: 35 * S,
      r: 90 * S, // no kind default: idle timeout + grace
    });
    expect(f.verdict(630 * S - 1)).toBe("waiting");
    expect(f.verdict(630 * S)).toBe("hang");
  });

  it("lets a configured kind default override the built-in one", () => {
    const f = fixture({ toolTimeouts: { mcp: 60 * S } });
    f.send(0, { type: "toolStart", id: "m", kind: "mcp", label: "github/search" });
    expect(f.monitor.nextDeadline()).toBe(90 * S);
  });

  it("uses the declared wait of an await call and its kind default otherwise", () => {
    const f = fixture();
    f.send(0, { type: "toolStart", id: "w1", kind: "await", timeoutMs: 60 * S });
    expect(f.monitor.nextDeadline()).toBe(90 * S);
    f.send(1 * S, end("w1"));
    f.send(1 * S, { type: "toolStart", id: "w2", kind: "await" });
    expect(f.monitor.nextDeadline()).toBe(1 * S + DEFAULT_TOOL_TIMEOUTS.await! + 30 * S);
  });

  it("completes background shells at once and matches their completion silently", () => {
    const f = fixture();
    expect(
      f.send(0, { ...shell("bg", 10 * S), background: true } as MonitorSignal),
    ).toBeUndefined();
    expect(f.monitor.check().verdict).toBe("ok");
    expect(f.send(1 * S, end("bg"))).toBeUndefined();
    expect(f.monitor.nextDeadline()).toBe(61 * S);
  });

  it("matches call ids by the exact string, newlines included", () => {
    const f = fixture();
    f.send(0, shell("call_1\nfc_1", 10 * S));
    expect(f.send(1, end("call_1"))?.code).toBe("unmatched-end");
    expect(f.verdict(2)).toBe("waiting");
    expect(f.send(3, end("call_1\nfc_1"))).toBeUndefined();
    expect(f.verdict(4)).toBe("ok");
  });

  it("tolerates an unmatched completion with a warning, never a hang", () => {
    const f = fixture();
    const warning = f.send(1 * S, end("ghost"));
    expect(warning).toEqual({
      code: "unmatched-end",
      id: "ghost",
      message: "tool call ended that never started",
    });
    expect(f.verdict(60 * S)).toBe("ok");
    expect(f.verdict(61 * S)).toBe("hang"); // an ordinary idle hang, counted from the completion
    expect(f.monitor.check().reason.kind).toBe("idle");
  });

  it("tolerates a duplicate start by restarting the call's clock", () => {
    const f = fixture();
    f.send(0, shell("dup", 10 * S));
    expect(f.send(20 * S, shell("dup", 10 * S))?.code).toBe("duplicate-start");
    expect(f.monitor.check().reason.openCallCount).toBe(1);
    expect(f.verdict(59 * S)).toBe("waiting");
    expect(f.monitor.nextDeadline()).toBe(60 * S);
  });

  it("never hangs after the result; a process that does not exit is a linger", () => {
    const f = fixture();
    f.send(0, shell("open", 1 * S)); // still open at the result: irrelevant now
    f.send(5 * S, { type: "done", eventType: "result/success" });
    expect(f.monitor.nextDeadline()).toBe(15 * S);
    expect(f.verdict(15 * S - 1)).toBe("ok");
    f.at(15 * S);
    const { verdict, reason } = f.monitor.check();
    expect(verdict).toBe("linger");
    expect(reason.kind).toBe("linger");
    expect(reason.message).toBe("process still running 10.0s after its result");
  });

  it("is ok forever once the process exits", () => {
    const f = fixture({ maxTurnMs: 10 * S });
    f.send(1 * S, { type: "done" });
    f.send(2 * S, { type: "exit" });
    expect(f.monitor.nextDeadline()).toBeUndefined();
    expect(f.verdict(10_000 * S)).toBe("ok");
    expect(f.monitor.snapshot().phase).toBe("exited");
  });

  it("reports events after the result once, as a warning", () => {
    const f = fixture();
    f.send(1 * S, { type: "done", eventType: "result/success" });
    const warning = f.send(2 * S, { type: "activity", eventType: "assistant" });
    expect(warning).toEqual({ code: "after-done", message: "assistant after the result; ignored" });
    expect(f.send(3 * S, shell("late", 1 * S))).toBeUndefined();
    expect(f.send(4 * S, { type: "done" })).toBeUndefined();
    // The linger deadline stays anchored on the first result.
    expect(f.monitor.nextDeadline()).toBe(11 * S);
    expect(f.verdict(11 * S)).toBe("linger");
  });

  it("reports a budget verdict when the turn outlives maxTurnMs", () => {
    const f = fixture({ maxTurnMs: 100 * S });
    f.send(0, shell("long", 600 * S));
    for (let t = 10 * S; t < 100 * S; t += 10 * S) f.send(t, thinking);
    expect(f.monitor.nextDeadline()).toBe(100 * S);
    expect(f.verdict(100 * S - 1)).toBe("waiting");
    f.at(100 * S);
    const { verdict, reason } = f.monitor.check();
    expect(verdict).toBe("budget");
    expect(reason.kind).toBe("budget");
    expect(reason.message).toBe(
      "turn ran 1m 40s, past its budget of 1m 40s (last event: thinking/completed)",
    );
  });

  it("reports whichever of hang and budget was due first", () => {
    const f = fixture({ maxTurnMs: 100 * S });
    f.send(0, thinking);
    expect(f.verdict(200 * S)).toBe("hang"); // idle at 60 s came before the budget at 100 s
    const g = fixture({ maxTurnMs: 30 * S });
    expect(g.verdict(200 * S)).toBe("budget");
  });

  it("captures the session id", () => {
    const f = fixture();
    f.send(0, { type: "session", sessionId: "d43015b9", eventType: "system/init" });
    expect(f.monitor.snapshot().sessionId).toBe("d43015b9");
    expect(f.monitor.check().reason.sessionId).toBe("d43015b9");
  });

  it("gives a nextDeadline that is exact: 1 ms before it no hang, at it the hang", () => {
    const scenarios: Array<[string, (f: ReturnType<typeof fixture>) => void]> = [
      ["idle", (f) => f.send(1_234, thinking)],
      ["tool", (f) => f.send(777, shell("t", 4_321))],
      ["linger", (f) => f.send(99, { type: "done" })],
    ];
    for (const [name, setup] of scenarios) {
      const f = fixture();
      setup(f);
      const deadline = f.monitor.nextDeadline()!;
      expect(f.verdict(deadline - 1), name).not.toMatch(/hang|linger/);
      expect(f.verdict(deadline), name).toMatch(/hang|linger/);
    }
  });

  it("uses the injected clock for every method when no time is passed", () => {
    let now = 1_000;
    const monitor = createMonitor({ now: () => now, warnFraction: 0 });
    monitor.observe(thinking);
    now = 61_000;
    expect(monitor.check().verdict).toBe("hang");
    expect(monitor.snapshot().silentMs).toBe(60_000);
  });

  it("rejects thresholds that are not durations", () => {
    expect(() => createMonitor({ idleTimeoutMs: -1 })).toThrow(RangeError);
    expect(() => createMonitor({ toolTimeouts: { mcp: Number.NaN } })).toThrow(/toolTimeouts.mcp/);
    expect(() => createMonitor({ warnFraction: 1 })).toThrow(/warnFraction/);
  });
});

describe("soft warnings", () => {
  it("warns once at half the idle timeout, then fires the hang at the full timeout", () => {
    let now = 0;
    const monitor = createMonitor({ now: () => now });
    monitor.observe(thinking, 0);
    expect(monitor.nextDeadline()).toBe(30 * S);
    now = 30 * S - 1;
    expect(monitor.check().warning).toBeUndefined();
    now = 30 * S;
    const first = monitor.check();
    expect(first.verdict).toBe("ok");
    expect(first.warning).toEqual({
      kind: "idle",
      firesInMs: 30 * S,
      message: "quiet for 30.0s; hang in 30.0s if nothing arrives",
    });
    expect(monitor.check().warning).toBeUndefined(); // once per silence
    expect(monitor.nextDeadline()).toBe(60 * S);
    now = 40 * S;
    monitor.observe(thinking); // a new silence begins
    expect(monitor.nextDeadline()).toBe(70 * S);
    now = 70 * S;
    expect(monitor.check().warning?.kind).toBe("idle");
  });

  it("warns at half of the latest open call's allowance", () => {
    let now = 0;
    const monitor = createMonitor({ now: () => now });
    monitor.observe(shell("a", 10 * S)); // allowance 40 s
    expect(monitor.nextDeadline()).toBe(20 * S);
    now = 20 * S;
    const result = monitor.check();
    expect(result.verdict).toBe("waiting");
    expect(result.warning?.kind).toBe("tool");
    expect(result.warning?.message).toBe(
      'tool call running long; hang in 20.0s: shell "sleep a" 20.0s of 40.0s',
    );
    expect(monitor.nextDeadline()).toBe(40 * S);
  });
});

describe("snapshot", () => {
  it("tells what the agent is doing and how far each deadline is", () => {
    let now = 0;
    const monitor = createMonitor({ now: () => now, warnFraction: 0 });
    expect(monitor.snapshot().phase).toBe("starting");
    monitor.observe(thinking);
    now = 2 * S;
    expect(monitor.snapshot()).toMatchObject({
      phase: "thinking",
      silentMs: 2 * S,
      verdictInMs: 58 * S,
    });
    monitor.observe({ type: "activity", eventType: "assistant", phase: "responding" });
    expect(monitor.snapshot().phase).toBe("responding");
    monitor.observe(shell("s", 10 * S));
    now = 12 * S;
    const snapshot = monitor.snapshot();
    expect(snapshot).toMatchObject({
      phase: "tool",
      verdict: "waiting",
      elapsedMs: 12 * S,
      silentMs: 10 * S,
      nextDeadlineInMs: 30 * S,
      verdictInMs: 30 * S,
    });
    expect(snapshot.openCalls[0]).toMatchObject({
      id: "s",
      elapsedMs: 10 * S,
      remainingMs: 30 * S,
    });
    monitor.observe({ type: "activity", eventType: "user" });
    expect(monitor.snapshot().phase).toBe("tool");
    monitor.observe(end("s"));
    monitor.observe({ type: "activity", eventType: "user" });
    expect(monitor.snapshot().phase).toBe("working");
    monitor.observe({ type: "done" });
    expect(monitor.snapshot()).toMatchObject({ phase: "done", verdictInMs: 10 * S });
  });
});

describe("pause and resume", () => {
  it("holds idle, tool and linger deadlines while output waits on its reader, but not the budget", () => {
    let clock = 0;
    const monitor = createMonitor({ idleTimeoutMs: 2_000, maxTurnMs: 5_000, now: () => clock });
    monitor.observe({ type: "activity" }, 0);
    monitor.pause(100);
    expect(monitor.nextDeadline()).toBe(5_000);
    clock = 4_000;
    expect(monitor.check().verdict).toBe("ok");
    monitor.resume(4_000);
    // Silence counts from the resume: the idle hang would be at 6 s, the budget comes first.
    expect(monitor.check(4_999).verdict).toBe("ok");
    expect(monitor.nextDeadline()).toBe(5_000);
    clock = 5_000;
    expect(monitor.check().verdict).toBe("budget");
    monitor.pause(5_000);
    expect(monitor.check(6_000).verdict).toBe("budget");
  });
});

describe("pause after a result", () => {
  it("does not count the time output waited on its reader towards lingering", () => {
    const monitor = createMonitor({ exitGraceMs: 1_000, startedAt: 0, now: () => 0 });
    monitor.observe({ type: "done" }, 0);
    monitor.pause(500);
    expect(monitor.check(5_000).verdict).toBe("ok");
    monitor.resume(5_000);
    expect(monitor.check(5_400).verdict).toBe("ok");
    expect(monitor.check(5_500).verdict).toBe("linger");
  });
});

describe("untrusted tool kinds", () => {
  it.each(["constructor", "__proto__", "toString", "valueOf", "hasOwnProperty"])(
    "gives a %s call the idle timeout as its allowance, not an Object.prototype member",
    (kind) => {
      const monitor = createMonitor({
        idleTimeoutMs: 1_000,
        toolGraceMs: 500,
        startedAt: 0,
        now: () => 0,
      });
      monitor.observe({ type: "toolStart", id: "c", kind }, 0);
      expect(monitor.nextDeadline()).toBe(750);
      expect(monitor.check(1_500).verdict).toBe("hang");
    },
  );

  it("ignores a declared timeout that is not a finite number >= 0", () => {
    const monitor = createMonitor({
      idleTimeoutMs: 1_000,
      toolGraceMs: 500,
      startedAt: 0,
      now: () => 0,
    });
    monitor.observe({ type: "toolStart", id: "c", kind: "shell", timeoutMs: Number.NaN }, 0);
    monitor.observe({ type: "toolStart", id: "d", kind: "shell", timeoutMs: -5 }, 0);
    expect(Number.isFinite(monitor.nextDeadline())).toBe(true);
  });
});

describe("quiet but working (liveness)", () => {
  const live = (options: MonitorOptions = {}) =>
    fixture({ idleTimeoutMs: 60 * S, liveness: {}, ...options });
  /** The tree used `cpuMs` of CPU and moved `ioBytes` since the previous sample. */
  const sample = (cpuMs: number, ioBytes = 0): MonitorSignal => ({
    type: "liveness",
    cpuMs,
    ioBytes,
  });

  it("asks for a baseline halfway, a decision at the deadline, and re-arms while the tree works", () => {
    const f = live();
    f.send(0, thinking);
    expect(f.monitor.nextDeadline()).toBe(30 * S);
    f.at(30 * S);
    expect(f.monitor.check().probe).toBe(true);
    f.send(30 * S, sample(5));
    expect(f.monitor.check().probe).toBeUndefined();
    expect(f.monitor.nextDeadline()).toBe(60 * S);
    f.at(60 * S);
    const due = f.monitor.check();
    expect(due).toMatchObject({ verdict: "ok", probe: true });
    // 4.1 s of CPU in 30 s: working.
    f.send(60 * S, sample(4_100, 3_200_000));
    const after = f.monitor.check();
    expect(after.verdict).toBe("ok");
    expect(after.working).toMatchObject({ working: true, cpuMs: 4_100, spanMs: 30 * S });
    expect(after.working?.message).toBe("quiet for 1m, working: 4.1s CPU, 3.2 MB moved in 30.0s");
    // One timer, at the next decision: a full idle window later, no baseline needed.
    expect(f.monitor.nextDeadline()).toBe(120 * S);
    expect(f.monitor.snapshot().quietButWorking?.working).toBe(true);
  });

  it("fires the idle hang exactly as before when the tree is parked", () => {
    const f = live();
    f.send(0, thinking);
    f.send(30 * S, sample(5));
    f.at(60 * S);
    expect(f.monitor.check().probe).toBe(true);
    f.send(60 * S, sample(30, 40));
    const { verdict, reason } = f.monitor.check();
    expect(verdict).toBe("hang");
    expect(reason.kind).toBe("idle");
    expect(reason.liveness).toMatchObject({ working: false, cpuMs: 30 });
    expect(reason.message).toContain(
      "the agent's processes were idle too (30ms CPU, 40 B moved in 30.0s)",
    );
  });

  it("does not call a busy agent parked on a span too short to tell, on a loaded machine", () => {
    // The e2e run that was killed (--idle-timeout 1s): the agent spun silent on a machine with
    // more busy processes than cores. Its baseline came halfway; over the next 500 ms it had
    // 28 ms of a core, which /proc counts in whole 10 ms ticks: 20 ms, under the 25 ms
    // (5% of 500 ms) that is working. It was taken as parked and killed at the deadline.
    const f = live({ idleTimeoutMs: 1 * S });
    f.send(0, thinking);
    f.at(500);
    expect(f.monitor.check().probe).toBe(true);
    f.send(500, { type: "liveness", cpuMs: 1_230, pids: [4242] });
    f.at(1 * S);
    expect(f.monitor.check().probe).toBe(true);
    f.send(1 * S, { type: "liveness", cpuMs: 20, pids: [4242] });
    // 20 ms and a tick it may have missed reach 25 ms: no verdict, another look when a span
    // can tell, (20 + 10) / 5% = 600 ms from the baseline.
    expect(f.monitor.check()).toMatchObject({ verdict: "ok" });
    expect(f.monitor.nextDeadline()).toBe(1_101);
    f.at(1_101);
    expect(f.monitor.check()).toMatchObject({ verdict: "ok", probe: true });
    f.send(1_101, { type: "liveness", cpuMs: 20, pids: [4242] });
    // Both spans as one: 40 ms of CPU in 601 ms, working.
    const judged = f.monitor.check();
    expect(judged.verdict).toBe("ok");
    expect(judged.working).toMatchObject({ working: true, cpuMs: 40, spanMs: 601 });
  });

  it("still fires at the deadline over a short span when even a missed tick would not be work", () => {
    const f = live({ idleTimeoutMs: 1 * S });
    f.send(0, thinking);
    f.send(500, { type: "liveness", cpuMs: 900, pids: [4242] });
    f.at(1 * S);
    f.monitor.check();
    // 10 ms counted, under 20 ms used: less than 25 ms, parked however the ticks fell.
    f.send(1 * S, { type: "liveness", cpuMs: 10, pids: [4242] });
    expect(f.monitor.check()).toMatchObject({
      verdict: "hang",
      reason: { kind: "idle", liveness: { working: false, cpuMs: 10, spanMs: 500 } },
    });
  });

  it("judges an undecided span with the next and calls the tree parked once they can tell", () => {
    const f = live({ idleTimeoutMs: 1 * S });
    f.send(0, thinking);
    f.send(500, { type: "liveness", cpuMs: 0, pids: [1, 2, 3] });
    f.at(1 * S);
    f.monitor.check();
    // Three processes may each have used a tick unseen: 30 ms, over 25 ms. Not yet parked.
    f.send(1 * S, { type: "liveness", cpuMs: 0, pids: [1, 2, 3] });
    expect(f.monitor.check().verdict).toBe("ok");
    expect(f.monitor.nextDeadline()).toBe(1_101);
    f.at(1_101);
    f.monitor.check();
    f.send(1_101, { type: "liveness", cpuMs: 0, pids: [1, 2, 3] });
    expect(f.monitor.check()).toMatchObject({
      verdict: "hang",
      reason: { liveness: { working: false, cpuMs: 0, spanMs: 601 } },
    });
  });

  it("counts bytes moved as work, as when a reply streams in without CPU to speak of", () => {
    const f = live();
    f.send(0, thinking);
    f.send(30 * S, sample(0));
    f.at(60 * S);
    f.monitor.check();
    f.send(60 * S, sample(10, 9_000)); // 300 B/s
    expect(f.monitor.check().working?.working).toBe(true);
  });

  it("keeps a 12.6-minute silent generation alive, and ends a spinning agent at --max-quiet", () => {
    const f = live({ liveness: { maxQuietMs: 30 * 60 * S } });
    f.send(0, thinking);
    let now = 0;
    const step = (): void => {
      const next = f.monitor.nextDeadline()!;
      now = next;
      f.at(now);
      const check = f.monitor.check();
      if (check.probe) {
        f.send(now, sample(3_000, 50_000));
        f.monitor.check();
      }
    };
    while (now < 12.6 * 60 * S) step();
    expect(f.monitor.check(now).verdict).toBe("ok");
    f.send(12.6 * 60 * S, thinking); // the reply arrives
    // A second silence, busy forever: the cap ends it, 30 min after the last output.
    for (let guard = 0; guard < 100 && f.monitor.check(now).verdict !== "hang"; guard += 1) step();
    expect(now).toBe(12.6 * 60 * S + 30 * 60 * S);
    expect(f.monitor.check(now).reason.message).toContain(
      "busy but silent past the 30m allowed for quiet work",
    );
  });

  it("decides after a second sample when the first came with no baseline in this silence", () => {
    const f = live({ idleTimeoutMs: 10 * S });
    f.send(0, thinking);
    f.at(10 * S); // the baseline moment was missed
    expect(f.monitor.check().probe).toBe(true);
    f.send(10 * S, sample(0));
    expect(f.monitor.check().verdict).toBe("ok");
    expect(f.monitor.nextDeadline()).toBe(15 * S);
    f.at(15 * S);
    expect(f.monitor.check().probe).toBe(true);
    f.send(15 * S, sample(0));
    expect(f.monitor.check().verdict).toBe("hang");
  });

  it("uses the first-output allowance before anything is printed", () => {
    const f = live({ firstOutputMs: 180 * S, liveness: undefined });
    expect(f.verdict(179 * S)).toBe("ok");
    expect(f.verdict(180 * S)).toBe("hang");
    const g = fixture({ firstOutputMs: 180 * S });
    g.send(1 * S, thinking);
    expect(g.verdict(61 * S)).toBe("hang");
    // A line on stderr first (a warning, an update notice) is alive, but not the stream: the
    // start-up allowance runs on from it, and the stream's first line ends it.
    const h = fixture({ firstOutputMs: 180 * S });
    h.send(1 * S, { type: "activity", eventType: "stderr", aside: true });
    expect(h.monitor.snapshot().phase).toBe("starting");
    expect(h.verdict(180 * S)).toBe("ok");
    expect(h.verdict(181 * S)).toBe("hang");
    const k = fixture({ firstOutputMs: 180 * S });
    k.send(1 * S, { type: "activity", eventType: "stderr", aside: true });
    k.send(2 * S, thinking);
    expect(k.verdict(62 * S)).toBe("hang");
  });

  it("extends the exit grace while the agent drains after its result, up to a cap", () => {
    const f = live({ exitGraceMs: 10 * S, liveness: { maxDrainMs: 60 * S } });
    f.send(0, { type: "done" });
    f.send(8 * S, { type: "activity", eventType: "system/task_notification" });
    // The exit grace runs from the last event after the result.
    expect(f.verdict(17 * S)).toBe("ok");
    f.at(13 * S);
    expect(f.monitor.check().probe).toBe(true); // baseline halfway
    f.send(13 * S, sample(2_000));
    f.at(18 * S);
    expect(f.monitor.check().probe).toBe(true);
    f.send(18 * S, sample(2_000)); // still busy
    expect(f.monitor.check().verdict).toBe("ok");
    // Busy for ever: linger at the cap, 60 s after the result.
    let now = 18 * S;
    for (let guard = 0; guard < 50; guard += 1) {
      now = f.monitor.nextDeadline()!;
      f.at(now);
      const check = f.monitor.check();
      if (check.verdict === "linger") break;
      if (check.probe) f.send(now, sample(2_000));
    }
    expect(now).toBe(60 * S);
    expect(f.monitor.check(now).verdict).toBe("linger");
  });

  it("still calls a process parked after its result a linger, at the exit grace", () => {
    const f = live({ exitGraceMs: 10 * S });
    f.send(0, { type: "done" });
    f.at(5 * S);
    expect(f.monitor.check().probe).toBe(true);
    f.send(5 * S, sample(0));
    f.at(10 * S);
    expect(f.monitor.check().probe).toBe(true);
    f.send(10 * S, sample(1));
    expect(f.monitor.check().verdict).toBe("linger");
  });

  it("never asks for samples without liveness on", () => {
    const f = fixture();
    f.send(0, thinking);
    f.at(30 * S);
    expect(f.monitor.check().probe).toBeUndefined();
    expect(f.verdict(60 * S)).toBe("hang");
  });
});

describe("background work", () => {
  const backgrounded = (id: string, pid?: number): MonitorSignal => ({
    type: "toolEnd",
    id,
    eventType: "tool_call/completed",
    background: { ...(pid === undefined ? {} : { pid }) },
  });

  it("is a state with its own budget, not an idle hang, and ends in a clear verdict", () => {
    const f = fixture({ backgroundWaitMs: 10 * 60 * S, warnFraction: 0.5 });
    f.send(0, shell("dev"));
    f.send(1 * S, backgrounded("dev", 4242));
    expect(f.monitor.snapshot().phase).toBe("background");
    expect(f.verdict(2 * 60 * S)).toBe("ok");
    f.at(6 * 60 * S + 1 * S);
    const soft = f.monitor.check().warning;
    expect(soft).toMatchObject({ kind: "background" });
    expect(soft?.message).toContain('"sleep dev" (pid 4242)');
    f.at(10 * 60 * S + 1 * S);
    const { verdict, reason } = f.monitor.check();
    expect(verdict).toBe("hang");
    expect(reason.kind).toBe("background");
    expect(reason.background).toEqual([
      { id: "dev", pid: 4242, label: "sleep dev", elapsedMs: 10 * 60 * S },
    ]);
  });

  it("with liveness on, samples the tree halfway and again before the verdict", () => {
    const f = fixture({ backgroundWaitMs: 10 * 60 * S, idleTimeoutMs: 60 * S, liveness: {} });
    f.send(0, shell("dev"));
    f.send(0, backgrounded("dev", 4242));
    expect(f.monitor.nextDeadline()).toBe(5 * 60 * S);
    f.at(5 * 60 * S);
    expect(f.monitor.check().probe).toBe(true);
    // The dev server is gone: back to the idle rule, measured from the last output.
    f.send(5 * 60 * S, { type: "liveness", cpuMs: 0, pids: [100] });
    expect(f.monitor.snapshot().background).toEqual([]);
    expect(f.monitor.check().verdict).toBe("ok");
    f.at(10 * 60 * S);
    const due = f.monitor.check();
    expect(due.probe).toBe(true);
    f.send(10 * 60 * S, { type: "liveness", cpuMs: 0 });
    expect(f.monitor.check().verdict).toBe("hang");
  });

  it("ends when the agent says so, or when a sample no longer has its process", () => {
    const f = fixture({ idleTimeoutMs: 60 * S });
    f.send(0, shell("a"));
    f.send(1 * S, backgrounded("a", 11));
    f.send(2 * S, { type: "backgroundEnd", id: "a", eventType: "system/task_notification" });
    expect(f.verdict(62 * S)).toBe("hang"); // the idle rule again
    const g = fixture({ idleTimeoutMs: 60 * S });
    g.send(0, shell("b"));
    g.send(1 * S, backgrounded("b", 12));
    g.send(2 * S, { type: "liveness", cpuMs: 0, pids: [1, 2] });
    expect(g.monitor.snapshot().background).toEqual([]);
  });
});

import { afterEach, describe, expect, it, vi } from "vitest";
import { type KillIo, killTree } from "./kill-tree.js";
import type { ProcessEntry } from "./process-tree.js";

const entry = (pid: number, pgid: number, startTime = "1"): ProcessEntry => ({
  pid,
  ppid: 1,
  pgid,
  sid: pgid,
  startTime,
  zombie: false,
});

/** A fake system: which processes the scans find, which are running, and every signal sent. */
function system(scans: ProcessEntry[][], running: (entry: ProcessEntry) => boolean) {
  const signals: Array<[number, string]> = [];
  const io: KillIo = {
    findTree: async () => scans.shift() ?? [],
    isRunning: async (candidate) => running(candidate),
    signal: (pid, name) => signals.push([pid, name]),
  };
  return { io, signals };
}

describe("killTree", () => {
  it("signals the agent's group while one of its own processes is in it", async () => {
    const member = entry(501, 500);
    const { io, signals } = system(
      [[entry(500, 500), member]],
      (candidate) => candidate.pid === 501,
    );
    const result = await killTree(
      { rootPid: 500, token: "t", graceMs: 0, pollMs: 1, reapWaitMs: 20 },
      io,
    );
    expect(signals).toContainEqual([-500, "SIGTERM"]);
    expect(signals).toContainEqual([-500, "SIGKILL"]);
    expect(result.survivors).toEqual([501]);
  });

  it("never signals a group whose number came back to a stranger after the agent was reaped", async () => {
    // The agent (500) is gone; a daemon of its run that left the group lives on; a stranger has
    // since been given pid 500 and leads a group 500 of its own: no scan finds it as ours.
    const daemon = entry(777, 777);
    const { io, signals } = system(
      [[daemon], [daemon], [daemon]],
      (candidate) => candidate.pid === 777,
    );
    await killTree({ rootPid: 500, token: "t", graceMs: 0, pollMs: 1, reapWaitMs: 20 }, io);
    expect(signals.filter(([pid]) => pid === -500 || pid === 500)).toEqual([]);
    expect(signals).toContainEqual([777, "SIGTERM"]);
    expect(signals).toContainEqual([777, "SIGKILL"]);
  });

  it("does not signal a pid whose process has changed since it was found", async () => {
    const found = entry(600, 600, "100");
    const { io, signals } = system([[found]], () => false);
    const result = await killTree(
      { rootPid: 600, token: "t", graceMs: 0, pollMs: 1, reapWaitMs: 20 },
      io,
    );
    expect(signals).toEqual([]);
    expect(result.survivors).toEqual([]);
  });

  it("finds, kills and reports a process that appeared after SIGKILL, in its last look", async () => {
    const agent = entry(500, 500);
    const late = entry(900, 900);
    const lateAlive = true;
    const { io, signals } = system([[agent], [], [late]], (candidate) => {
      if (candidate.pid === 900) return lateAlive;
      return false;
    });
    const result = await killTree(
      { rootPid: 500, token: "t", graceMs: 0, pollMs: 1, reapWaitMs: 20 },
      io,
    );
    expect(signals).toContainEqual([900, "SIGKILL"]);
    expect(result.survivors).toEqual([900]);
  });

  describe("the grace", () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it("runs from the SIGTERM, however long finding the tree took", async () => {
      vi.useFakeTimers({ toFake: ["setTimeout", "performance"] });
      const agent = entry(500, 500);
      let terminatedAt: number | undefined;
      const signals: Array<[number, string]> = [];
      const io: KillIo = {
        // A loaded machine: reading /proc takes longer than the whole grace.
        findTree: async () => {
          vi.advanceTimersByTime(3_000);
          return terminatedAt === undefined ? [agent] : [];
        },
        // The agent goes 400 ms after its SIGTERM, well within the 1 s grace.
        isRunning: async () => terminatedAt === undefined || performance.now() < terminatedAt + 400,
        signal: (pid, name) => {
          signals.push([pid, name]);
          if (name === "SIGTERM") terminatedAt ??= performance.now();
        },
      };
      const killing = killTree({ rootPid: 500, token: "t", graceMs: 1_000, pollMs: 20 }, io);
      await vi.runAllTimersAsync();
      const result = await killing;
      expect(result.steps.map((step) => [step.signal, step.atMs])).toEqual([["SIGTERM", 3_000]]);
      expect(signals.map(([, name]) => name)).not.toContain("SIGKILL");
      expect(result.survivors).toEqual([]);
    });

    it("ends in SIGKILL for a process still there a grace after its SIGTERM", async () => {
      vi.useFakeTimers({ toFake: ["setTimeout", "performance"] });
      const agent = entry(500, 500);
      let killed = false;
      const io: KillIo = {
        findTree: async () => (killed ? [] : [agent]),
        isRunning: async () => !killed,
        signal: (_pid, name) => {
          if (name === "SIGKILL") killed = true;
        },
      };
      const killing = killTree({ rootPid: 500, token: "t", graceMs: 1_000, pollMs: 20 }, io);
      await vi.runAllTimersAsync();
      const result = await killing;
      expect(result.steps.map((step) => [step.signal, step.atMs])).toEqual([
        ["SIGTERM", 0],
        ["SIGKILL", 1_000],
      ]);
    });
  });
});

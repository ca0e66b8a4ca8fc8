import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { createTreeSampler, parsePsTime } from "./tree-sampler.js";

const linux = process.platform === "linux";

/** A detached shell that starts `script`'s children, as an agent would. */
function agent(script: string, env: Record<string, string> = {}) {
  const child = spawn("sh", ["-c", script], {
    detached: true,
    stdio: "ignore",
    env: { ...process.env, ...env },
  });
  return {
    pid: child.pid!,
    stop: () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {}
    },
    exited: new Promise((resolve) => child.once("exit", resolve)),
  };
}

describe.skipIf(!linux)("createTreeSampler (Linux)", () => {
  it("sees a busy tree working and a parked one idle, over the time between samples", async () => {
    const busy = agent("sh -c 'while :; do :; done' & sleep 30");
    const parked = agent("sleep 30 & sleep 30");
    try {
      const busySampler = createTreeSampler(busy.pid);
      const parkedSampler = createTreeSampler(parked.pid);
      busySampler.sample();
      parkedSampler.sample();
      // Sample until the busy tree has used 100 ms of CPU (however loaded this machine is);
      // over the same time the parked one must have used next to none.
      let busyMs = 0;
      let parkedMs = 0;
      let pids = { busy: 0, parked: 0 };
      const started = performance.now();
      while (busyMs < 100 && performance.now() - started < 20_000) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const working = busySampler.sample()!;
        const idle = parkedSampler.sample()!;
        busyMs += working.cpuMs;
        parkedMs += idle.cpuMs;
        pids = { busy: working.pids.length, parked: idle.pids.length };
        expect(working.costMs).toBeGreaterThan(0);
      }
      const elapsed = performance.now() - started;
      expect(busyMs).toBeGreaterThanOrEqual(100);
      expect(parkedMs).toBeLessThanOrEqual(Math.max(30, elapsed * 0.02));
      expect(pids.busy).toBeGreaterThanOrEqual(2);
      expect(pids.parked).toBeGreaterThanOrEqual(2);
    } finally {
      busy.stop();
      parked.stop();
    }
  });

  it("counts bytes a quiet tree reads, and finds processes that left its group by the token", async () => {
    const token = "sampler-test-token";
    const reader = agent(
      "setsid sh -c 'while :; do head -c 200000 /dev/zero > /dev/null; sleep 0.05; done' & sleep 30",
      {
        CURSOR_WRAP_AGENT_TOKEN: token,
      },
    );
    try {
      const sampler = createTreeSampler(reader.pid, token);
      sampler.sample();
      let bytes = 0;
      let pids = 0;
      const started = performance.now();
      while (bytes < 400_000 && performance.now() - started < 20_000) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const sample = sampler.sample()!;
        bytes += sample.ioBytes ?? 0;
        pids = Math.max(pids, sample.pids.length);
      }
      expect(bytes).toBeGreaterThanOrEqual(400_000);
      // The shell, and the loop that left its group and session but kept the token.
      expect(pids).toBeGreaterThanOrEqual(2);
    } finally {
      reader.stop();
      // the setsid'd loop left the group: end it by its own group
      for (const pid of createTreeSampler(reader.pid, token).sample()?.pids ?? []) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {}
      }
    }
  });
});

describe("parsePsTime", () => {
  it.each([
    ["0:01.50", 1_500],
    ["12:03.00", 723_000],
    ["1:00:00", 3_600_000],
    ["2-01:00:00", 176_400_000],
  ])("reads %s", (text, ms) => {
    expect(parsePsTime(text)).toBe(ms);
  });
});

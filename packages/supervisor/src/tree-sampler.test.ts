import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createTreeSampler, parsePsTime, type TreeSampler } from "./tree-sampler.js";

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

/** The state letter of a process (`S` asleep, `R` running), or undefined once it is gone. */
function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ", 1)[0];
  } catch {
    return undefined;
  }
}

/** The command name of a process, or undefined once it is gone. */
function processName(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, "latin1").trim();
  } catch {
    return undefined;
  }
}

/** Resolves once the sampled tree runs `count` `sleep`s and every one of its processes is asleep. */
async function parkedTree(sampler: TreeSampler, count: number): Promise<void> {
  for (;;) {
    const pids = sampler.sample()?.pids ?? [];
    const sleeps = pids.filter((pid) => processName(pid) === "sleep").length;
    if (sleeps >= count && pids.every((pid) => processState(pid) === "S")) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(!linux)("createTreeSampler (Linux)", () => {
  it("sees a busy tree working and a parked one idle, over the time between samples", async () => {
    const busy = agent("sh -c 'while :; do :; done' & sleep 30");
    const parked = agent("sleep 30 & sleep 30");
    try {
      const busySampler = createTreeSampler(busy.pid);
      const parkedSampler = createTreeSampler(parked.pid);
      // Starting a process costs CPU (fork, exec, loading the shell), and the kernel charges
      // it by the clock tick: on a loaded machine starting the parked tree alone can be charged
      // several ticks. Measure from the moment its processes are all asleep, which is what
      // "parked" means.
      await parkedTree(parkedSampler, 2);
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

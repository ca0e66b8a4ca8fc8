// End to end, R-SUP3b: a wrapper that dies without a chance to clean up (SIGKILL, the OOM
// killer) still takes the agent's whole tree with it.

import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkNoSurvivorsAfterAll, invocations, wrap } from "./harness.js";

checkNoSurvivorsAfterAll();

/** The live processes that carry a run's token in their environment. */
function carrying(token: string): number[] {
  const marker = Buffer.from(`CURSOR_WRAP_AGENT_TOKEN=${token}\0`);
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "latin1");
      if (/^\S+ \(.*\) [ZX] /s.test(stat)) continue;
      if (readFileSync(`/proc/${name}/environ`).includes(marker)) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

describe.runIf(process.platform === "linux")("a SIGKILLed wrapper", () => {
  it("leaves nothing of the agent's tree behind, in and out of its group", async () => {
    const session = wrap(["-p", "x", "--idle-timeout", "10m", "--kill-grace", "1s"], {
      scenario: "descendants",
    });
    await session.stdoutHas('"subtype":"started"');
    const [call] = invocations(session);
    // The agent, a descendant ignoring SIGTERM in its group, one after setsid, a daemon.
    await expect.poll(() => carrying(call!.token!).length, { timeout: 20_000 }).toBe(4);
    const killedAt = performance.now();
    session.child.kill("SIGKILL");
    await session.done;
    await expect.poll(() => carrying(call!.token!), { timeout: 20_000, interval: 50 }).toEqual([]);
    // Within the kill grace (1 s) and a second, with room for a loaded machine.
    console.log(
      `tree gone ${Math.round(performance.now() - killedAt)} ms after the wrapper's SIGKILL`,
    );
  });
});

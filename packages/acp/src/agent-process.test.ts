import type { Readable } from "node:stream";
import { AgentSpawnError } from "@cursor-wrap/supervisor";
import { isAlive } from "@cursor-wrap/testkit";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type AcpAgentHandle, supervisedAgent } from "./agent-process.js";

const started: AcpAgentHandle[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((agent) => agent.kill("test over")));
});

/** The first line a stream gives. */
function firstLine(stream: Readable): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    const onData = (chunk: Buffer): void => {
      text += chunk.toString("utf8");
      const newline = text.indexOf("\n");
      if (newline === -1) return;
      stream.off("data", onData);
      resolve(text.slice(0, newline));
    };
    stream.on("data", onData);
  });
}

describe("supervisedAgent", () => {
  it("keeps the agent's stdin open for the proxy, and kills its whole tree in stages", async () => {
    const launch = supervisedAgent({ bin: "/bin/sh", args: ["-c", "sleep 600 & cat"] });
    const agent = await launch();
    started.push(agent);
    agent.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize"}\n');
    expect(await firstLine(agent.stdout)).toBe('{"jsonrpc":"2.0","id":1,"method":"initialize"}');
    const sample = agent.sampleTree();
    expect(sample?.pids).toContain(agent.pid);
    expect(sample?.pids.length).toBeGreaterThanOrEqual(2);
    const kill = await agent.kill("parked");
    expect(kill.survivors).toEqual([]);
    expect(kill.steps[0]?.signal).toBe("SIGTERM");
    // Its stdin closed first, then the group was signalled with no grace between (a parked
    // agent): the shell exits by its `cat` seeing the end of input or by the SIGTERM, whichever
    // the scheduler runs first; its sleeping child was signalled either way.
    expect(agent.stdin.writableEnded || agent.stdin.destroyed).toBe(true);
    expect([
      { code: 0, signal: null },
      { code: null, signal: "SIGTERM" },
    ]).toContainEqual(await agent.exited);
    for (const pid of sample?.pids ?? []) expect(isAlive(pid)).toBe(false);
  });

  it("stops what an agent that exits by itself left running in its tree", async () => {
    const launch = supervisedAgent({
      bin: "/bin/sh",
      args: ["-c", "sleep 600 & echo $!; read line; exit 3"],
      killGraceMs: 500,
    });
    const agent = await launch();
    started.push(agent);
    const helper = Number(await firstLine(agent.stdout));
    expect(isAlive(helper)).toBe(true);
    agent.stdin.write("bye\n");
    expect(await agent.exited).toEqual({ code: 3, signal: null });
    await vi.waitFor(() => expect(isAlive(helper)).toBe(false), {
      timeout: 20_000,
      interval: 50,
    });
  });

  it("says a missing agent before spawning anything, naming no flag", async () => {
    const launch = supervisedAgent({ bin: "no-such-acp-agent", args: ["acp"], env: { PATH: "" } });
    const failure = await launch().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AgentSpawnError);
    expect(failure).toMatchObject({
      code: "AGENT_SPAWN_FAILED",
      bin: "no-such-acp-agent",
      reason: "ENOENT",
      message: 'cannot start "no-such-acp-agent": not found on PATH',
    });
  });
});

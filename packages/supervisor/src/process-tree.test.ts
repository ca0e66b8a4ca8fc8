import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  AGENT_TOKEN_VARIABLE,
  carriesTokenSync,
  findAgentTree,
  newTreeToken,
  parseProcStat,
} from "./process-tree.js";

describe("newTreeToken", () => {
  it("is new at every call, carries this process's id, and reads back from an environment", () => {
    const tokens = Array.from({ length: 10_000 }, () => newTreeToken());
    expect(new Set(tokens).size).toBe(tokens.length);
    for (const token of tokens.slice(0, 100)) {
      expect(token).toMatch(/^[0-9a-z]+-[0-9a-z]+-[0-9a-z]+-[0-9a-z]+$/);
      expect(Number.parseInt(token.split("-")[0]!, 36)).toBe(process.pid);
    }
  });
});

describe("parseProcStat", () => {
  it("reads pid, parent, group, session, CPU time and start time, whatever the command name holds", () => {
    const stat =
      "4242 (we ird) (name)) S 4200 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10";
    expect(parseProcStat(stat)).toEqual({
      pid: 4242,
      ppid: 4200,
      pgid: 4242,
      sid: 4242,
      cpuTicks: 3,
      startTime: "987654",
      zombie: false,
    });
    expect(parseProcStat("7 (sh) Z 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55 0 0")?.zombie).toBe(
      true,
    );
    expect(parseProcStat("garbage")).toBeUndefined();
  });
});

describe.runIf(process.platform === "linux")("findAgentTree", () => {
  it("tells a process carrying a new token from one that does not", async () => {
    const [mine, other] = [newTreeToken(), newTreeToken()];
    const child = spawn("sleep", ["30"], {
      env: { ...process.env, [AGENT_TOKEN_VARIABLE]: mine },
      stdio: "ignore",
    });
    try {
      await new Promise((resolve) => child.once("spawn", resolve));
      // As the kill reads it, from /proc/<pid>/environ.
      expect(carriesTokenSync(child.pid!, mine)).toBe(true);
      expect(carriesTokenSync(child.pid!, other)).toBe(false);
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("finds the root process itself", async () => {
    const tree = await findAgentTree(process.pid, "no-such-token");
    // The wrapper never selects itself.
    expect(tree.map((entry) => entry.pid)).not.toContain(process.pid);
  });
});

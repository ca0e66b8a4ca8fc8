// The README's example, run as it is written (only its import points at this source) against
// the fake agent, a real process: a success, a hang, a linger and a cancel in the middle of a
// tool call. After each, no process carrying the run's token is left on the machine.

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fakeAgentBin, fakeAgentEnv } from "@cursor-wrap/testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { RunAgentOptions } from "./index.js";

type Supervise = (
  prompt: string,
  overrides?: Partial<RunAgentOptions>,
) => Promise<{
  answer: string;
  ending: string;
  sessionId: string | undefined;
  usage: Record<string, number> | undefined;
}>;

const readme = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");
const example = /<!-- example:start -->\n```ts\n([\s\S]*?)```\n<!-- example:end -->/.exec(
  readme,
)?.[1];

/** The live processes whose environment carries the run's token. */
function carrying(token: string): number[] {
  const marker = Buffer.from(`CURSOR_WRAP_AGENT_TOKEN=${token}\0`);
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`).includes(marker)) found.push(Number(name));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

let dir: string;
let supervise: Supervise;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cursor-wrap-run-example-"));
  expect(example, "the README's example block").toBeDefined();
  const source = fileURLToPath(new URL("./index.js", import.meta.url));
  const file = join(dir, "supervise.ts");
  writeFileSync(
    file,
    example!.replace('from "@cursor-wrap/run"', `from ${JSON.stringify(source)}`),
  );
  ({ supervise } = (await import(file)) as { supervise: Supervise });
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the example on one scenario of the fake agent, and returns what it printed too. */
async function runExample(
  scenario: string,
  overrides: Partial<RunAgentOptions> = {},
  onLine: (line: string) => void = () => {},
) {
  const lines: string[] = [];
  const print = vi.spyOn(console, "log").mockImplementation((line: string) => {
    lines.push(line);
    onLine(line);
  });
  try {
    const outcome = await supervise("build the project", {
      agentBin: fakeAgentBin,
      env: { ...process.env, ...fakeAgentEnv({ scenario }) },
      log: { dir: join(dir, "logs"), retentionMs: 0 },
      ...overrides,
    });
    const tokens = lines.flatMap((line) => /token (\S+)/.exec(line)?.[1] ?? []);
    expect(tokens.length).toBeGreaterThan(0);
    for (const token of tokens) expect(carrying(token)).toEqual([]);
    return { ...outcome, lines };
  } finally {
    print.mockRestore();
  }
}

describe("the README example", () => {
  it("gives the answer of a run that succeeds, with its tool calls", async () => {
    const outcome = await runExample("normal:50");
    expect(outcome.ending).toBe("completed");
    expect(outcome.answer).not.toBe("");
    expect(outcome.sessionId).toBeDefined();
    expect(outcome.lines).toContain("tool shell started");
    expect(outcome.lines).toContain("tool shell completed");
    expect(outcome.lines.filter((line) => line.startsWith("error"))).toEqual([]);
  });

  it("kills a hung agent's tree and says HANG", async () => {
    const outcome = await runExample("idle-hang", {
      monitor: { idleTimeoutMs: 1_000, firstOutputMs: 20_000 },
      killGraceMs: 500,
    });
    expect(outcome.ending).toBe("hang");
    expect(outcome.lines.some((line) => line.startsWith("error HANG:"))).toBe(true);
  });

  it("keeps the answer of an agent that lingers after it, and kills it", async () => {
    const outcome = await runExample("linger", {
      monitor: { exitGraceMs: 500, idleTimeoutMs: 20_000 },
      killGraceMs: 500,
    });
    expect(outcome.ending).toBe("completed");
    expect(outcome.answer).toContain("All done.");
    expect(outcome.lines.some((line) => line.startsWith("error LINGER:"))).toBe(true);
  });

  it("stops the agent when the signal aborts in the middle of a tool call", async () => {
    const controller = new AbortController();
    const outcome = await runExample(
      "long-tool:600000",
      { signal: controller.signal, killGraceMs: 500 },
      (line) => {
        if (line === "tool shell started") controller.abort("the orchestrator's deadline");
      },
    );
    expect(outcome.ending).toBe("cancelled");
    expect(outcome.lines).toContain("tool shell started");
  });
});

// Fault suite: the agent dies anywhere, the reader goes away, the log cannot be written,
// signals arrive in every phase. After each: the right exit code, a log of whole JSON records
// that ends by explaining the exit, and no process left behind.

import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fakeAgentBin, fakeAgentEnv, isAlive, type Step } from "@cursor-wrap/testkit";
import { describe, expect, it } from "vitest";
import {
  CLI,
  checkNoSurvivorsAfterAll,
  invocations,
  logFiles,
  survivors,
  type WrapRun,
  wrap,
} from "./harness.js";

checkNoSurvivorsAfterAll();

/** A deterministic sequence of fractions in [0, 1): the same "random" points on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Every line of the run's log parsed (so every line must be whole JSON); the records in order. */
function wholeLog(run: { logDir: string }): Array<Record<string, unknown>> {
  const [file] = logFiles(run);
  expect(file).toBeDefined();
  const lines = readFileSync(file!, "utf8").split("\n");
  expect(lines.at(-1)).toBe(""); // ends with a newline: no record cut short
  return lines.slice(0, -1).map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The log ends with the session's end, which agrees with the exit code. */
function expectExplained(
  run: WrapRun,
  records: Array<Record<string, unknown>>,
  explanation: string,
): void {
  expect(records.at(-1)).toMatchObject({ msg: "session_end", exit_code: run.code });
  expect(
    records.some((record) => record.msg === explanation),
    `a ${explanation} record`,
  ).toBe(true);
  expect(survivors()).toEqual([]);
}

async function agentStarted(wrapped: { dir: string }): Promise<number> {
  await expect.poll(() => invocations(wrapped).length, { timeout: 20_000 }).toBe(1);
  return invocations(wrapped)[0]!.pid;
}

describe("faults", () => {
  it("the agent SIGKILLed at random points of a turn: exit 1 without a result, 0 with one", async () => {
    const random = seeded(42);
    for (let round = 0; round < 6; round += 1) {
      const wrapped = wrap(["-p", "x"], { scenario: "normal:400" });
      const pid = await agentStarted(wrapped);
      await sleep(Math.floor(random() * 700)); // the kill point, not a synchronisation
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // it finished first: that is one of the points too
      }
      const result = await wrapped.done;
      const records = wholeLog(result);
      const gotResult = records.some((record) => record.msg === "result_received");
      expect(result.code).toBe(gotResult ? 0 : 1);
      expectExplained(result, records, gotResult ? "turn_end" : "abnormal_exit");
    }
  });

  it("the wrapper's stdout closed at random points: the tree is killed, exit 1, quietly", async () => {
    const random = seeded(7);
    for (let round = 0; round < 4; round += 1) {
      const wrapped = wrap(["-p", "x", "--idle-timeout", "1m"], { scenario: "slow:10000" });
      await wrapped.stdoutHas('"subtype":"delta"');
      await sleep(Math.floor(random() * 300));
      wrapped.child.stdout.destroy();
      const result = await wrapped.done;
      expect(result.code).toBe(1);
      expect(result.stderr).toBe("");
      expectExplained(result, wholeLog(result), "stdout_closed");
    }
  });

  it("log writes failing mid-session (a file size limit): proxying goes on, one warning, whole records", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cursor-wrap-fsize-"));
    const logDir = join(dir, "logs");
    // RLIMIT_FSIZE (6 blocks of 512 bytes) makes writes past 3 KiB fail; SIGXFSZ is ignored so they fail with an error.
    const child = spawn(
      "sh",
      [
        "-c",
        `trap '' XFSZ; ulimit -f 6; exec "${process.execPath}" "${CLI}" -p x --agent-bin "${fakeAgentBin}" --log-dir "${logDir}"`,
      ],
      { env: { ...process.env, NO_COLOR: "1", ...fakeAgentEnv({ scenario: "normal:50" }) } },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    expect(stdout).toContain('"type":"result"');
    expect(stderr.match(/log write failed/g)).toHaveLength(1);
    const [file] = readdirSync(logDir);
    expect(file).toMatch(/\.incomplete\.jsonl$/);
    const text = readFileSync(join(logDir, file!), "utf8");
    expect(text.endsWith("\n")).toBe(true);
    for (const line of text.trimEnd().split("\n")) expect(() => JSON.parse(line)).not.toThrow();
  });
});

const SIGNALS = [
  ["SIGINT", 130],
  ["SIGTERM", 143],
  ["SIGHUP", 129],
] as const;

const waitForRecord = (target: { logDir: string }, msg: string) =>
  expect
    .poll(
      () =>
        logFiles(target).length > 0 &&
        readFileSync(logFiles(target)[0]!, "utf8").includes(`"msg":"${msg}"`),
      { timeout: 20_000 },
    )
    .toBe(true);

// Every phase would last 10 minutes or more on its own (the agent's sleep, its stream, its
// tool, the exit grace, the kill grace): a run that ends well within the test's timeout ended
// because of the signal, however loaded the machine.
const PHASES: Array<{
  phase: string;
  args: string[];
  scenario: string | Step[];
  reached: (wrapped: ReturnType<typeof wrap>) => Promise<unknown>;
}> = [
  {
    phase: "spawning (the agent has started, nothing printed yet)",
    args: ["--idle-timeout", "10m"],
    scenario: [{ type: "sleep", ms: 600_000 }],
    reached: (wrapped) => agentStarted(wrapped),
  },
  {
    phase: "streaming",
    args: ["--idle-timeout", "10m"],
    scenario: "slow:600000",
    reached: (wrapped) => wrapped.stdoutHas('"subtype":"delta"'),
  },
  {
    phase: "tool running",
    args: ["--idle-timeout", "10m"],
    scenario: "tool-hang:600000",
    reached: (wrapped) => wrapped.stdoutHas('"subtype":"started"'),
  },
  {
    phase: "after the result",
    args: ["--exit-grace", "10m"],
    scenario: "linger",
    reached: (wrapped) => wrapped.stdoutHas('"type":"result"'),
  },
  {
    phase: "during a kill (the agent ignores SIGTERM)",
    args: ["--idle-timeout", "300ms", "--kill-grace", "10m"],
    scenario: "ignore-sigterm",
    reached: (wrapped) => waitForRecord(wrapped, "kill_step"),
  },
];

describe("signals in every phase", () => {
  for (const { phase, args, scenario, reached } of PHASES) {
    for (const [signal, code] of SIGNALS) {
      it(`${signal} ${phase}: exit ${code}, the tree killed, the log explains it`, async () => {
        const wrapped = wrap(["-p", "x", ...args], { scenario });
        await reached(wrapped);
        wrapped.child.kill(signal);
        const result = await wrapped.done;
        expect(result.code).toBe(code);
        expect(result.elapsedMs).toBeLessThan(100_000); // never waits out the phase
        const records = wholeLog(result);
        expect(records.at(-1)).toMatchObject({ outcome: `signal ${signal}` });
        expectExplained(result, records, "signal_received");
        for (const invocation of invocations(result)) expect(isAlive(invocation.pid)).toBe(false);
      });
    }
  }
});

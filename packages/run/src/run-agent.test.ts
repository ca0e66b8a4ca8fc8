// runAgent against the fake agent as a real process: the contract stream on every path, the
// allow-list of tools, leaving the loop early, and nothing global touched.

import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import type { ContractEvent } from "@cursor-wrap/events";
import { contractSchemas } from "@cursor-wrap/events/schemas";
import { createFormatter, type Formatter } from "@cursor-wrap/format";
import { fakeAgentBin, fakeAgentEnv } from "@cursor-wrap/testkit";
import { describe, expect, it } from "vitest";
import {
  type AgentRun,
  type PromptInput,
  type RunAgentOptions,
  type RunEvent,
  RunUsageError,
  runAgent,
} from "./index.js";
import { parseTurnInput } from "./turn-input.js";

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

const failing = (message: string) => () => {
  throw new Error(message);
};

function fakeRun(scenario: string, options: Partial<RunAgentOptions> = {}): AgentRun {
  return runAgent({
    prompt: "build the project",
    agentBin: fakeAgentBin,
    env: { ...process.env, ...fakeAgentEnv({ scenario }) },
    killGraceMs: 500,
    ...options,
  });
}

async function collect(run: AgentRun, onEvent: (event: RunEvent) => void = () => {}) {
  const events: RunEvent[] = [];
  for await (const event of run) {
    events.push(event);
    onEvent(event);
  }
  return events;
}

const contractOf = (events: RunEvent[]): ContractEvent[] =>
  events.flatMap((event) => (event.kind === "contract" ? [event.event] : []));

/**
 * Protocol first, `done` once and last, every event valid by the published schema, and every
 * tool call started ended (by the agent, or as failed when its attempt ended first).
 */
function expectWellFormed(events: ContractEvent[]): void {
  const open = new Set<string>();
  for (const event of events) {
    expect(contractSchemas.ContractEvent.safeParse(event).success, JSON.stringify(event)).toBe(
      true,
    );
    if (event.type !== "tool_call") continue;
    if (event.data.status === "started") open.add(event.data.id);
    else open.delete(event.data.id);
  }
  expect([...open], "tool calls started and never ended").toEqual([]);
  expect(events[0]).toMatchObject({ type: "protocol", data: { version: "1.0" } });
  expect(events.filter((event) => event.type === "done")).toHaveLength(1);
  expect(events.at(-1)?.type).toBe("done");
}

const tokensOf = (events: RunEvent[]): string[] =>
  events.flatMap((event) => (event.kind === "started" ? [event.token] : []));

describe("runAgent", () => {
  it("streams raw and normalised events of a run that succeeds, and its result", async () => {
    const run = fakeRun("normal:50", { turnId: "turn-7" });
    const events = await collect(run);
    const result = await run.result;
    expect(result.ending).toEqual({ kind: "completed" });
    expect(result.exitCode).toBe(0);
    expect(result.sessionId).toBeDefined();
    expect(result.attempts).toHaveLength(1);
    expect(result.exit?.code).toBe(0);
    expect(result.usage?.inputTokens).toBeGreaterThan(0);
    expect(events.some((event) => event.kind === "agent")).toBe(true);
    expect(events[0]).toMatchObject({ kind: "attempt", attempt: { turn: 1, attempt: 1 } });
    const contract = contractOf(events);
    expectWellFormed(contract);
    expect(contract.every((event) => event.turnId === "turn-7")).toBe(true);
    expect(contract.at(-1)).toMatchObject({ data: { finishReason: "stop" } });
    expect(contract.some((event) => event.type === "usage")).toBe(true);
    const text = contract.flatMap((event) =>
      event.type === "assistant_delta" ? [event.data.content] : [],
    );
    expect(text.join("")).toContain("All tests pass.");
    expect(result.answer).toContain("All tests pass.");
  });

  it("ends a hung tool call as failed, also across a retry that resumes the session", async () => {
    const run = fakeRun("tool-hang:300", {
      monitor: { toolGraceMs: 300, firstOutputMs: 20_000 },
      promptAfterHang: "go on",
      maxHangRetries: 1,
    });
    const events = await collect(run);
    const contract = contractOf(events);
    expectWellFormed(contract);
    const calls = contract.flatMap((event) => (event.type === "tool_call" ? [event.data] : []));
    const hung = calls.find((call) => call.status === "started");
    expect(hung).toBeDefined();
    // The fake agent hangs in the same call again after the resume: ended at the retry, then
    // at the end of the turn.
    const same = calls.filter((call) => call.id === hung!.id);
    expect(same.map((call) => [call.status, call.summary])).toEqual([
      ["started", undefined],
      ["failed", "the attempt ended before the call did (retried)"],
      ["started", undefined],
      ["failed", "the turn ended before the call did"],
    ]);
    await run.result;
  });

  it("ends with error HANG and done after a hang", async () => {
    const run = fakeRun("idle-hang", { monitor: { idleTimeoutMs: 800, firstOutputMs: 20_000 } });
    const events = await collect(run);
    const result = await run.result;
    expect(result.ending).toEqual({ kind: "hang" });
    expect(result.exitCode).toBe(2);
    const contract = contractOf(events);
    expectWellFormed(contract);
    expect(contract).toContainEqual(
      expect.objectContaining({ type: "error", data: expect.objectContaining({ code: "HANG" }) }),
    );
    expect(contract.at(-1)).toMatchObject({ data: { finishReason: "error" } });
    for (const token of tokensOf(events)) expect(carrying(token)).toEqual([]);
  });

  it("ends with an error and done when the agent crashes mid-turn", async () => {
    const run = fakeRun("abnormal:3", { recovery: { maxRetries: 0 } });
    const events = await collect(run);
    const result = await run.result;
    expect(result.ending).toEqual({ kind: "error" });
    expect(result.exit?.code).toBe(3);
    const contract = contractOf(events);
    expectWellFormed(contract);
    expect(contract.filter((event) => event.type === "error").length).toBeGreaterThan(0);
    expect(contract.at(-1)).toMatchObject({ data: { finishReason: "error" } });
  });

  it("cancel() stops the agent mid-tool: done says cancelled, no process is left", async () => {
    const run = fakeRun("long-tool:600000");
    const events = await collect(run, (event) => {
      if (event.kind === "contract" && event.event.type === "tool_call") run.cancel("deadline");
    });
    const result = await run.result;
    expect(result.ending).toEqual({ kind: "cancelled" });
    expect(result.exitCode).toBe(1);
    const contract = contractOf(events);
    expectWellFormed(contract);
    expect(contract.at(-1)).toMatchObject({ data: { finishReason: "cancelled" } });
    for (const token of tokensOf(events)) expect(carrying(token)).toEqual([]);
  });

  it("leaving the loop early cancels the run and waits until its processes are gone", async () => {
    const run = fakeRun("long-tool:600000");
    let token: string | undefined;
    for await (const event of run) {
      if (event.kind === "started") token = event.token;
      if (event.kind === "contract" && event.event.type === "tool_call") break;
    }
    expect(token).toBeDefined();
    // return() awaited the run: nothing of it is left, and the result is settled.
    expect(carrying(token!)).toEqual([]);
    expect(run.agent).toBeUndefined();
    expect((await run.result).ending).toEqual({ kind: "cancelled" });
  });

  it("an aborted signal cancels a run before its agent starts", async () => {
    const run = fakeRun("normal", { signal: AbortSignal.abort("not needed") });
    const events = await collect(run);
    const result = await run.result;
    expect(result.ending.kind).toBe("cancelled");
    expect(events.some((event) => event.kind === "agent")).toBe(false);
    // No agent was started at all, and the contract stream still ends in done.
    expect(events.some((event) => event.kind === "started")).toBe(false);
    expect(result.attempts).toEqual([]);
    const contract = contractOf(events);
    expectWellFormed(contract);
    // Cancelled, not failed: no error before it.
    expect(contract.map((event) => event.type)).toEqual(["protocol", "done"]);
    expect(contract.at(-1)).toMatchObject({ data: { finishReason: "cancelled" } });
  });

  it.each([
    ["cancel()", (run: AgentRun) => run.cancel("not needed")],
    ["an abort", (_run: AgentRun, abort: AbortController) => abort.abort("not needed")],
  ])("%s right after the call ends the events in done cancelled", async (_name, stop) => {
    const abort = new AbortController();
    const run = fakeRun("normal", { signal: abort.signal });
    stop(run, abort);
    const contract = contractOf(await collect(run));
    expect((await run.result).ending.kind).toBe("cancelled");
    expectWellFormed(contract);
    expect(contract.at(-1)).toMatchObject({ data: { finishReason: "cancelled" } });
    expect(contract.some((event) => event.type === "error")).toBe(false);
  });

  it("rejects with a typed error when the agent cannot start, the events still ending in done", async () => {
    const run = fakeRun("normal", { agentBin: "/nonexistent/cursor-agent" });
    const events = await collect(run);
    await expect(run.result).rejects.toMatchObject({ code: "AGENT_SPAWN_FAILED" });
    const contract = contractOf(events);
    expectWellFormed(contract);
    expect(contract.at(-1)).toMatchObject({ data: { finishReason: "error" } });
    // A caller with no stderr and no log reads why in the error itself.
    expect(contract.find((event) => event.type === "error")).toMatchObject({
      data: {
        code: "RUN_FAILED",
        message: expect.stringMatching(
          /^the run ended before the turn did: .*\/nonexistent\/cursor-agent/,
        ),
      },
    });
  });

  it("reports a tool the turn does not allow, and goes on unless told to enforce", async () => {
    const run = fakeRun("normal:50", { tools: [{ name: "read" }] });
    const contract = contractOf(await collect(run));
    expectWellFormed(contract);
    expect(contract).toContainEqual(
      expect.objectContaining({
        type: "error",
        data: expect.objectContaining({ code: "TOOL_NOT_ALLOWED", fatal: false }),
      }),
    );
    expect((await run.result).ending).toEqual({ kind: "completed" });
  });

  it("enforced, a tool the turn does not allow stops the run at once", async () => {
    const run = fakeRun("long-tool:600000", { tools: [{ name: "read" }], enforceTools: true });
    const events = await collect(run);
    const result = await run.result;
    expect(result.ending).toEqual({ kind: "error" });
    expect(result.failures.map((failure) => failure.kind)).toEqual(["tool-not-allowed"]);
    const contract = contractOf(events);
    expectWellFormed(contract);
    expect(contract).toContainEqual(
      expect.objectContaining({
        type: "error",
        data: expect.objectContaining({ code: "TOOL_NOT_ALLOWED", fatal: true }),
      }),
    );
    for (const token of tokensOf(events)) expect(carrying(token)).toEqual([]);
  });

  it("enforced, arguments that fail the tool's schema stop the run (TOOL_ARGS_INVALID)", async () => {
    const turn = parseTurnInput(
      JSON.stringify({
        type: "turn",
        turnId: "t-1",
        messages: [{ role: "user", content: "run the tests" }],
        tools: [
          {
            name: "shell",
            schema: {
              type: "object",
              properties: { command: { type: "string", pattern: "^git " } },
              required: ["command"],
            },
          },
        ],
      }),
    );
    const run = fakeRun("long-tool:600000", {
      prompt: turn.prompt,
      turnId: turn.turnId,
      ...(turn.tools ? { tools: turn.tools } : {}),
      enforceTools: true,
    });
    const contract = contractOf(await collect(run));
    expectWellFormed(contract);
    expect(contract).toContainEqual(
      expect.objectContaining({
        type: "error",
        turnId: "t-1",
        data: expect.objectContaining({ code: "TOOL_ARGS_INVALID", fatal: true }),
      }),
    );
    expect((await run.result).failures.map((failure) => failure.kind)).toEqual([
      "tool-args-invalid",
    ]);
  });

  describe("a callback of the caller that throws stops the agent and rejects the result", () => {
    const cases: Array<[string, string, () => Partial<RunAgentOptions>]> = [
      [
        "host.onAgent",
        "idle-hang",
        () => ({ host: { onAgent: (agent) => agent && failing("onAgent failed")() } }),
      ],
      [
        "the output's formatter",
        "idle-hang",
        () => {
          const stream = new PassThrough().resume();
          const formatter = createFormatter("stream-json", stream);
          return {
            output: { formatter: { ...formatter, write: failing("formatter failed") }, stream },
          };
        },
      ],
      ["the stderr shown", "auth-error", () => ({ stderr: { write: failing("stderr failed") } })],
    ];
    it.each(cases)("%s", async (_name, scenario, options) => {
      const run = fakeRun(scenario, options());
      const events = await collect(run);
      await expect(run.result).rejects.toThrow(/failed$/);
      const tokens = tokensOf(events);
      expect(tokens).toHaveLength(1);
      // The agent was killed (idle-hang never exits by itself) and reaped before the rejection.
      for (const token of tokens) expect(carrying(token)).toEqual([]);
      expect(run.agent).toBeUndefined();
    });
  });

  it("a formatter whose close throws (or that has none) still lets the events end, with done", async () => {
    for (const close of [failing("close failed"), undefined]) {
      const stream = new PassThrough().resume();
      const formatter = { ...createFormatter("stream-json", stream), close };
      const run = fakeRun("quick", {
        output: { formatter: formatter as unknown as Formatter, stream },
      });
      // Read to the end: the loop must finish (it never did).
      const events = await collect(run);
      expectWellFormed(contractOf(events));
      await expect(run.result).rejects.toThrow(close ? "close failed" : /close/);
      for (const token of tokensOf(events)) expect(carrying(token)).toEqual([]);
    }
  });

  it.runIf(process.platform === "linux")(
    "a caller killed without cleaning up takes the agent's tree with it (R-SUP3b)",
    async () => {
      // A program using the built package, SIGKILLed while its agent hangs (silent: it has
      // written its last line, so no failed write can end it).
      const script = `
        import { runAgent } from ${JSON.stringify(new URL("../dist/index.js", import.meta.url).href)};
        const run = runAgent({ prompt: "x", agentBin: process.argv[1], killGraceMs: 500 });
        let token;
        for await (const event of run) {
          if (event.kind === "started") token = event.token;
          const { type, subtype } = event.kind === "agent" ? event.event : {};
          if (type === "thinking" && subtype === "completed") console.log(token);
        }
      `;
      const host = spawn(process.execPath, ["--input-type=module", "-e", script, fakeAgentBin], {
        env: { ...process.env, ...fakeAgentEnv({ scenario: "idle-hang" }) },
        stdio: ["ignore", "pipe", "inherit"],
      });
      const [token] = (await once(createInterface({ input: host.stdout! }), "line")) as [string];
      await expect.poll(() => carrying(token).length, { timeout: 20_000 }).toBeGreaterThan(0);
      host.kill("SIGKILL");
      await once(host, "exit");
      await expect.poll(() => carrying(token), { timeout: 20_000, interval: 50 }).toEqual([]);
    },
  );

  it("installs no process handler: signals, exit and crashes stay the caller's", async () => {
    const events = ["SIGINT", "SIGTERM", "SIGHUP", "exit", "uncaughtException"] as const;
    const before = events.map((name) => process.listenerCount(name));
    const run = fakeRun("normal:50", { events: "none" });
    // Counted while the agent runs.
    while (run.agent === undefined) await new Promise((resolve) => setImmediate(resolve));
    const during = events.map((name) => process.listenerCount(name));
    await run.result;
    expect(during).toEqual(before);
    expect(events.map((name) => process.listenerCount(name))).toEqual(before);
  });

  it("an interactive run: a turn per prompt, the session resumed, done once per prompt", async () => {
    const prompts: PromptInput[] = [
      { kind: "prompt", text: "first" },
      { kind: "prompt", text: "second" },
      { kind: "eof" },
    ];
    const run = fakeRun("quick", {
      prompt: undefined,
      prompts: { next: async () => prompts.shift() ?? { kind: "eof" }, close() {} },
    });
    const events = await collect(run);
    const result = await run.result;
    expect(result.ending).toEqual({ kind: "completed" });
    expect(result.turns).toBe(2);
    const contract = contractOf(events);
    const done = contract.filter((event) => event.type === "done");
    expect(done.map((event) => event.data)).toEqual([
      { finishReason: "stop" },
      { finishReason: "stop" },
    ]);
    expect(contract.filter((event) => event.type === "protocol")).toHaveLength(2);
    const attempts = events.flatMap((event) => (event.kind === "attempt" ? [event.attempt] : []));
    expect(attempts.map((attempt) => attempt.turn)).toEqual([1, 2]);
    expect(attempts[1]?.resume).toBe(result.sessionId);
  });

  it("writes the session log when asked, closed with how the run ended", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cursor-wrap-run-log-"));
    try {
      const run = fakeRun("normal:20", { log: { dir, retentionMs: 0 }, events: "none" });
      const result = await run.result;
      expect(result.logPath).toBeDefined();
      const records = readFileSync(result.logPath!, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { msg: string; outcome?: string; exit_code?: number });
      expect(records.some((record) => record.msg === "raw_event")).toBe(true);
      expect(records.some((record) => record.msg === "agent_started")).toBe(true);
      expect(records.at(-1)).toMatchObject({
        msg: "session_end",
        outcome: "completed",
        exit_code: 0,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses options with neither or both of prompt and prompts", () => {
    expect(() => runAgent({ agentBin: fakeAgentBin })).toThrow(RunUsageError);
    expect(() =>
      runAgent({ prompt: "x", prompts: { next: async () => ({ kind: "eof" }), close() {} } }),
    ).toThrow(/either `prompt` or `prompts`/);
  });

  it("refuses bad options before any agent starts: typed, with the option named", () => {
    const bad: Array<[Partial<RunAgentOptions>, RegExp]> = [
      [{ monitor: { idleTimeoutMs: -5 } }, /monitor: idleTimeoutMs must be/],
      [{ monitor: { toolGraceMs: -1 } }, /monitor: toolGraceMs must be/],
      [{ monitor: { maxTurnMs: "abc" as unknown as number } }, /monitor: maxTurnMs must be/],
      [{ monitor: { warnFraction: 2 } }, /monitor: warnFraction must be/],
      [{ killGraceMs: Number.NaN }, /killGraceMs must be/],
      [{ drainGraceMs: Infinity }, /drainGraceMs must be/],
      [{ maxHangRetries: 1.5 }, /maxHangRetries must be/],
      [{ parseCap: -1 }, /parseCap must be/],
      [{ events: "bogus" as RunAgentOptions["events"] }, /events must be one of/],
    ];
    // Thrown by runAgent itself: there is no run, so nothing of it is scheduled to start.
    for (const [options, message] of bad) {
      let thrown: unknown;
      try {
        fakeRun("idle-hang", options);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(options)).toBeInstanceOf(RunUsageError);
      expect((thrown as RunUsageError).code).toBe("RUN_USAGE");
      expect((thrown as Error).message).toMatch(message);
    }
  });

  it("its events can be read once", async () => {
    const run = fakeRun("quick", { events: "none" });
    run[Symbol.asyncIterator]();
    expect(() => run[Symbol.asyncIterator]()).toThrow(RunUsageError);
    await run.result;
  });
});

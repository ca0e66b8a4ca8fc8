// The adapter contract: `--output-format events` on every path (an answer, a hang, a crash, a
// signal mid-tool, each real capture replayed), `--input-format turn` with its allow-list of
// tools, and turn input that is refused before the agent starts. An answer, a hang and a
// signal run the built executable; the turn input and the crash run the CLI in-process
// against the fake agent as a real process (`runWithFakeAgent`).

import type { ContractEvent } from "@cursor-wrap/events";
import { contractSchemas } from "@cursor-wrap/events/schemas";
import { type Capture, realCapture, realCaptures } from "@cursor-wrap/fixtures";
import { describe, expect, it } from "vitest";
import { checkNoSurvivorsAfterAll, FAST, invocations, logRecords, run, wrap } from "./harness.js";
import { inMemoryAgent, runInProcess, runWithFakeAgent } from "./in-process.js";

checkNoSurvivorsAfterAll();

/** The events on stdout, each checked against the published schema. */
function eventsOf(stdout: Buffer): ContractEvent[] {
  return stdout
    .toString("utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const parsed = contractSchemas.ContractEvent.safeParse(JSON.parse(line));
      expect(parsed.success, line).toBe(true);
      return parsed.data as ContractEvent;
    });
}

/** Protocol first, `done` exactly once and last; its finish reason. */
function finishOf(events: ContractEvent[]): string {
  expect(events[0]).toMatchObject({ type: "protocol", data: { version: "1.0" } });
  const done = events.filter((event) => event.type === "done");
  expect(done).toHaveLength(1);
  expect(events.at(-1)).toBe(done[0]);
  return (done[0] as Extract<ContractEvent, { type: "done" }>).data.finishReason;
}

const codes = (events: ContractEvent[]): string[] =>
  events.flatMap((event) => (event.type === "error" ? [event.data.code] : []));

const turn = (fields: Record<string, unknown> = {}): string =>
  JSON.stringify({
    type: "turn",
    turnId: "turn-42",
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: "run the tests" },
    ],
    ...fields,
  });

describe("cursor-wrap -p --output-format events", () => {
  it("a turn that completes: deltas, tool calls, usage, done stop", async () => {
    const result = await run(["-p", "--output-format", "events", "go"], { scenario: "normal:50" });
    expect(result.code).toBe(0);
    const events = eventsOf(result.stdout);
    expect(finishOf(events)).toBe("stop");
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining(["assistant_delta", "tool_call", "usage"]),
    );
    const calls = events.filter((event) => event.type === "tool_call");
    expect(calls.map((event) => event.data.status)).toEqual(["started", "completed"]);
    expect(calls[1]).toMatchObject({ data: { name: "shell", args: { command: "npm test" } } });
  });

  it("a hang: error HANG, then done error, exit 2", async () => {
    const result = await run(["-p", "--output-format", "events", ...FAST, "go"], {
      scenario: "idle-hang",
    });
    expect(result.code).toBe(2);
    const events = eventsOf(result.stdout);
    expect(finishOf(events)).toBe("error");
    expect(codes(events)).toContain("HANG");
  });

  it("a crash mid-turn: an error, then done error, exit 1", async () => {
    const result = await runWithFakeAgent(
      ["-p", "--output-format", "events", "--max-retries", "0", ...FAST, "go"],
      { scenario: "abnormal:3" },
    );
    expect(result.code).toBe(1);
    const events = eventsOf(result.stdout);
    expect(finishOf(events)).toBe("error");
    expect(codes(events).length).toBeGreaterThan(0);
  });

  it("SIGTERM in the middle of a tool call: done cancelled, exit 143", async () => {
    const wrapped = wrap(["-p", "--output-format", "events", "go"], {
      scenario: "long-tool:600000",
    });
    await wrapped.stdoutHas('"tool_call"');
    wrapped.child.kill("SIGTERM");
    const result = await wrapped.done;
    expect(result.code).toBe(143);
    expect(finishOf(eventsOf(result.stdout))).toBe("cancelled");
  });

  /** A replayed capture's stream: well-formed, and the assistant's text once, never repeated. */
  function checkReplayed(capture: Capture, stdout: Buffer): void {
    const events = eventsOf(stdout);
    expect(["stop", "error"], capture.name).toContain(finishOf(events));
    const text = events.flatMap((event) =>
      event.type === "assistant_delta" ? [event.data.content] : [],
    );
    expect(text.join("").length, capture.name).toBeLessThanOrEqual(
      capture.bytes.toString("utf8").length,
    );
  }

  // Every capture in-process (the stream is what is checked: an agent in memory prints the
  // capture's bytes and exits); a few through real processes, with the capture's timing.
  it("every real capture replayed: a well-formed stream", async () => {
    for (const capture of realCaptures()) {
      const agent = inMemoryAgent(() => ({ stdout: capture.bytes, code: 0 }));
      const result = await runInProcess(
        ["-p", "--output-format", "events", "--exit-grace", "1s", "go"],
        { startAgent: agent.start },
      );
      expect(agent.starts, capture.name).toHaveLength(1);
      checkReplayed(capture, result.stdout);
    }
  });

  it("real captures replayed by a real agent process: a well-formed stream", async () => {
    const names = REAL_REPLAYS.filter((name) =>
      realCaptures().some((capture) => capture.name === name),
    );
    // Captures from elsewhere (CURSOR_WRAP_REAL_FIXTURES) may lack these: then the first two.
    const captures =
      names.length > 0 ? names.map((name) => realCapture(name)) : realCaptures().slice(0, 2);
    for (const capture of captures) {
      const result = await run(["-p", "--output-format", "events", "--exit-grace", "1s", "go"], {
        scenario: `replay:${capture.path}`,
        speed: 1000,
      });
      checkReplayed(capture, result.stdout);
    }
  });
});

/** Captures also replayed through real processes: a whole session, and an excerpt of one. */
const REAL_REPLAYS = [
  "reifying-cursor-hack--testdata-full-session",
  "xpadev-net-agentic-automation--sample-log-TAIL-excerpt",
];

describe("cursor-wrap -p --input-format turn", () => {
  it("sends the messages as the prompt and echoes turnId in every event", async () => {
    const result = await runWithFakeAgent(
      ["-p", "--input-format", "turn", "--output-format", "events"],
      {
        scenario: "normal:50",
        input: turn(),
      },
    );
    expect(result.code).toBe(0);
    expect(invocations(result)[0]?.stdin).toBe("System: Be brief.\n\nUser: run the tests");
    const events = eventsOf(result.stdout);
    expect(finishOf(events)).toBe("stop");
    expect(events.every((event) => event.turnId === "turn-42")).toBe(true);
  });

  it("a tool the turn does not allow: error TOOL_NOT_ALLOWED, the turn goes on", async () => {
    const result = await runWithFakeAgent(
      ["-p", "--input-format", "turn", "--output-format", "events"],
      {
        scenario: "normal:50",
        input: turn({ tools: [{ name: "read" }] }),
      },
    );
    expect(result.code).toBe(0);
    const events = eventsOf(result.stdout);
    expect(codes(events)).toEqual(["TOOL_NOT_ALLOWED"]);
    expect(finishOf(events)).toBe("stop");
    expect(logRecords(result).some((record) => record.msg === "tool_refused")).toBe(true);
  });

  it("--enforce-tools stops the run at the call, after it started: exit 1", async () => {
    const result = await runWithFakeAgent(
      ["-p", "--input-format", "turn", "--enforce-tools", "--output-format", "events"],
      { scenario: "long-tool:600000", input: turn({ tools: [{ name: "read" }] }) },
    );
    expect(result.code).toBe(1);
    const events = eventsOf(result.stdout);
    expect(finishOf(events)).toBe("error");
    expect(
      events.filter((event) => event.type === "error").map((event) => event.data),
    ).toContainEqual(expect.objectContaining({ code: "TOOL_NOT_ALLOWED", fatal: true }));
    expect(result.stderr).toMatch(/already started/);
  });

  it("--enforce-tools with arguments the tool's schema refuses: TOOL_ARGS_INVALID", async () => {
    const schema = {
      type: "object",
      properties: { command: { type: "string", pattern: "^git " } },
      required: ["command"],
    };
    const result = await runWithFakeAgent(
      ["-p", "--input-format", "turn", "--enforce-tools", "--output-format", "events"],
      { scenario: "long-tool:600000", input: turn({ tools: [{ name: "shell", schema }] }) },
    );
    expect(result.code).toBe(1);
    expect(codes(eventsOf(result.stdout))).toContain("TOOL_ARGS_INVALID");
  });

  it("malformed turn input fails closed before the agent starts", async () => {
    for (const input of [
      "run the tests",
      turn({ messages: [{ role: "robot", content: "x" }] }),
      turn({ tols: [] }),
    ]) {
      const result = await runWithFakeAgent(
        ["-p", "--input-format", "turn", "--output-format", "events"],
        {
          scenario: "normal:50",
          input,
        },
      );
      expect(result.code, input).toBe(1);
      expect(result.stderr, input).toMatch(/malformed turn input/);
      expect(invocations(result), input).toEqual([]);
      const events = eventsOf(result.stdout);
      expect(finishOf(events)).toBe("error");
      expect(codes(events)).toEqual(["TURN_INPUT_INVALID"]);
    }
  });

  it("--enforce-tools without a turn input is a usage error", async () => {
    const result = await runWithFakeAgent(["-p", "--enforce-tools", "go"], {
      scenario: "normal:50",
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/--input-format turn/);
    expect(invocations(result)).toEqual([]);
  });
});

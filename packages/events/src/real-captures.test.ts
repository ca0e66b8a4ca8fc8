import { realCapture, realCaptures } from "@cursor-wrap/fixtures";
import { describe, expect, it } from "vitest";
import {
  assistantMessage,
  recordedTimeline,
  resultInfo,
  sessionIdOf,
  toMonitorSignal,
  userPrompt,
} from "./extract.js";
import { createLineFramer } from "./line-framer.js";
import { schemaNameFor, schemas, toolSchemas } from "./schemas.js";
import { findToolKey, toolCallInfo, toolResult } from "./tool-call.js";
import type { AgentEvent, JsonEvent } from "./types.js";

function eventsOf(name: string): JsonEvent[] {
  const framer = createLineFramer();
  const events = [...framer.push(realCapture(name).bytes), ...framer.end()];
  return events.filter((event): event is JsonEvent => event.kind === "json");
}

const byType = (events: AgentEvent[], type: string, subtype?: string) =>
  events.filter(
    (event): event is JsonEvent =>
      event.kind === "json" &&
      event.type === type &&
      (subtype === undefined || event.subtype === subtype),
  );

describe("every real capture", () => {
  const captures = realCaptures();

  it("is found", () => {
    expect(captures.length).toBeGreaterThanOrEqual(12);
  });

  for (const capture of captures) {
    it(`${capture.name}: every line parses to an event that validates against its schema`, () => {
      const framer = createLineFramer();
      const events = [...framer.push(capture.bytes), ...framer.end()];
      const lineCount = capture.bytes.toString().split("\n").filter(Boolean).length;
      expect(events).toHaveLength(lineCount);
      for (const event of events) {
        expect(event.kind).toBe("json");
        if (event.kind !== "json") continue;
        const name = schemaNameFor(event.type, event.subtype);
        expect(name, `${event.type}/${event.subtype}`).toBeDefined();
        const parsed = schemas[name!].safeParse(event.data);
        expect(parsed.success, parsed.error?.message).toBe(true);
        if (event.type === "tool_call") {
          const key = findToolKey(event.data.tool_call);
          expect(key, "tool key").toBeDefined();
          const tool = (event.data.tool_call as Record<string, unknown>)[key!];
          const toolParsed = toolSchemas[key as keyof typeof toolSchemas].safeParse(tool);
          expect(toolParsed.success, toolParsed.error?.message).toBe(true);
          expect(toolCallInfo(event)?.key).toBe(key);
        }
      }
    });
  }
});

describe("reifying-cursor-hack--direct-sleep", () => {
  const events = eventsOf("reifying-cursor-hack--direct-sleep");

  it("echoes the prompt in its user event, and nowhere else", () => {
    expect(events.map(userPrompt).filter((prompt) => prompt !== undefined)).toEqual([
      "Run `sleep 5` using bash, then run `sleep 3` using bash. Do nothing else.",
    ]);
  });

  it("has the session id on every event and 210 thinking deltas", () => {
    expect(events).toHaveLength(220);
    expect(new Set(events.map(sessionIdOf))).toEqual(
      new Set(["d43015b9-0707-43f4-b2df-0bcea7891654"]),
    );
    expect(byType(events, "thinking", "delta")).toHaveLength(210);
  });

  it("reads both shell calls: call ids with embedded newlines, commands, declared timeouts", () => {
    const started = byType(events, "tool_call", "started").map(toolCallInfo);
    expect(started).toMatchObject([
      {
        callId:
          "call_PFAupCWibROFKbdASSdiHCoi\nfc_0d2609f619ccdca801698ca0a51c6481a0aaa34fcf724631a9",
        modelCallId: "5bf03e32-be64-48d4-a5ed-c4a0a939b88c-0-otyz",
        key: "shellToolCall",
        kind: "shell",
        command: "sleep 5",
        label: "sleep 5",
        timeoutMs: 10_000,
        background: false,
      },
      {
        callId:
          "call_pupgFL8Ql8xfqbnWylZPfmd1\nfc_0d2609f619ccdca801698ca0ace0ec81a0974879c9821e9992",
        modelCallId: "5bf03e32-be64-48d4-a5ed-c4a0a939b88c-1-ytm4",
        command: "sleep 3",
        timeoutMs: 10_000,
      },
    ]);
    expect(started[0]?.callId).toContain("\n");
  });

  it("reads exit codes and execution times from the completions", () => {
    const results = byType(events, "tool_call", "completed").map(toolResult);
    expect(results).toMatchObject([
      {
        outcome: "success",
        ok: true,
        exitCode: 0,
        executionTimeMs: 5_399,
        summary: "exit 0",
        background: false,
      },
      { outcome: "success", ok: true, exitCode: 0, executionTimeMs: 3_159 },
    ]);
  });

  it("maps to monitor signals that open and close the same call ids", () => {
    const signals = events.map(toMonitorSignal);
    const starts = signals.filter((signal) => signal.type === "toolStart");
    const ends = signals.filter((signal) => signal.type === "toolEnd");
    expect(starts.map((signal) => signal.id)).toEqual(ends.map((signal) => signal.id));
    expect(signals[0]).toEqual({
      type: "session",
      sessionId: "d43015b9-0707-43f4-b2df-0bcea7891654",
      eventType: "system/init",
    });
    expect(signals.at(-1)).toEqual({ type: "done", eventType: "result/success" });
    expect(starts[0]).toMatchObject({ kind: "shell", timeoutMs: 10_000, label: "sleep 5" });
  });

  it("tells mid-turn assistant messages from the final one", () => {
    const messages = byType(events, "assistant").map(assistantMessage);
    expect(messages.map((message) => message?.form)).toEqual(["message", "final"]);
    expect(messages[1]?.text).toBe(
      "Both commands have finished running: first `sleep 5`, then `sleep 3`, with no other actions taken.",
    );
  });

  it("reads the result, which has no usage in this CLI version", () => {
    expect(resultInfo(events.at(-1)!)).toEqual({
      subtype: "success",
      isError: false,
      text: "I’ll run `sleep 5` in bash, wait for it to finish, then run `sleep 3` in bash.Both commands have finished running: first `sleep 5`, then `sleep 3`, with no other actions taken.",
      durationMs: 21_509,
      durationApiMs: 21_509,
      sessionId: "d43015b9-0707-43f4-b2df-0bcea7891654",
      requestId: "5bf03e32-be64-48d4-a5ed-c4a0a939b88c",
    });
  });

  it("has a recorded timeline from timestamp_ms, filled in for lines without one", () => {
    const times = recordedTimeline(events);
    expect(times[0]).toBe(1_770_823_841_542); // init has no timestamp: takes the first one
    expect(times.at(-1)).toBe(1_770_823_856_707);
    const started = events.findIndex(
      (event) => event.type === "tool_call" && event.subtype === "started",
    );
    const completed = events.findIndex(
      (event) => event.type === "tool_call" && event.subtype === "completed",
    );
    expect(times[completed]! - times[started]!).toBe(5_409);
  });
});

describe("reifying-cursor-hack--parallel-sleep", () => {
  it("has two parallel calls sharing a model call id that complete in reverse order", () => {
    const events = eventsOf("reifying-cursor-hack--parallel-sleep");
    const started = byType(events, "tool_call", "started").map(toolCallInfo);
    const completed = byType(events, "tool_call", "completed").map(toolCallInfo);
    expect(started.map((info) => info?.command)).toEqual(["sleep 6", "sleep 4"]);
    expect(completed.map((info) => info?.command)).toEqual(["sleep 4", "sleep 6"]);
    expect(started[0]?.modelCallId).toBe(started[1]?.modelCallId);
    expect(
      byType(events, "tool_call", "completed").map((event) => toolResult(event)?.executionTimeMs),
    ).toEqual([4_162, 6_194]);
  });
});

describe("reifying-cursor-hack--subagent-sleep", () => {
  it("declares a 30 s timeout and a working directory", () => {
    const [started] = byType(
      eventsOf("reifying-cursor-hack--subagent-sleep"),
      "tool_call",
      "started",
    );
    expect(toolCallInfo(started!)).toMatchObject({
      command: "sleep 8",
      timeoutMs: 30_000,
      directory: "/home/user/project",
    });
  });

  it("v2 declares a 20 s timeout and streams 82 thinking deltas", () => {
    const events = eventsOf("reifying-cursor-hack--subagent-sleep-v2");
    expect(toolCallInfo(byType(events, "tool_call", "started")[0]!)?.timeoutMs).toBe(20_000);
    expect(byType(events, "thinking", "delta")).toHaveLength(82);
    expect(toolResult(byType(events, "tool_call", "completed")[0]!)?.executionTimeMs).toBe(10_256);
  });
});

describe("isomorphx-gump captures", () => {
  it("reads an edit call with an Anthropic call id and the usage counters", () => {
    const events = eventsOf("isomorphx-gump--c2-stream-json-edit");
    const [started] = byType(events, "tool_call", "started");
    const [completed] = byType(events, "tool_call", "completed");
    expect(toolCallInfo(started!)).toMatchObject({
      callId: "toolu_bdrk_01EKXzaxy6vAqm6a3wL93cNY",
      kind: "edit",
      path: "/tmp/gump-cursor-tests/stream-test.txt",
      label: "/tmp/gump-cursor-tests/stream-test.txt",
    });
    expect(toolResult(completed!)).toMatchObject({
      ok: true,
      linesAdded: 1,
      linesRemoved: 1,
      summary: "+1 -1",
      bytes: 19,
    });
    expect(resultInfo(events.at(-1)!)?.usage).toEqual({
      inputTokens: 4,
      outputTokens: 122,
      cacheReadTokens: 13_535,
      cacheWriteTokens: 15_844,
    });
  });

  it("reads the json-format result object, whose key order differs", () => {
    const [result] = eventsOf("isomorphx-gump--c1-output-format-json");
    expect(resultInfo(result!)).toMatchObject({
      isError: false,
      durationMs: 5_328,
      sessionId: "a9f4a1ce-971c-4a24-9ee9-3f8342293c93",
      usage: {
        inputTokens: 4,
        outputTokens: 117,
        cacheReadTokens: 28_154,
        cacheWriteTokens: 1_197,
      },
    });
  });
});

describe("docs-ZhengyiLuo-AgentsServer", () => {
  const events = eventsOf("docs-ZhengyiLuo-AgentsServer");
  const completions = byType(events, "tool_call", "completed");

  it("reads a glob call and its file count", () => {
    const [glob] = byType(events, "tool_call", "started");
    expect(toolCallInfo(glob!)).toMatchObject({
      callId: "call-glob-0",
      kind: "glob",
      pattern: "**/hello.py",
      directory: "/private/tmp/cursor-research",
      label: '"**/hello.py" in /private/tmp/cursor-research',
    });
    expect(toolResult(completions[0]!)).toMatchObject({
      ok: true,
      fileCount: 1,
      summary: "1 file",
    });
  });

  it("reads an edit with the full file before and after", () => {
    expect(toolResult(completions[1]!)).toMatchObject({
      kind: "edit",
      linesAdded: 1,
      linesRemoved: 0,
      ok: true,
    });
  });

  it("reads a shell call rejected without --force, which has no args", () => {
    const rejected = completions[2]!;
    expect(toolCallInfo(rejected)).toMatchObject({
      callId: "call-shell-3",
      kind: "shell",
      label: "",
    });
    expect(toolResult(rejected)).toMatchObject({
      outcome: "rejected",
      ok: false,
      pending: false,
      summary: "rejected",
    });
  });

  it("reads a successful shell call's stdout", () => {
    expect(toolResult(completions[3]!)).toMatchObject({
      ok: true,
      exitCode: 0,
      stdoutTail: "hello world",
    });
  });

  it("reads partial usage on the result", () => {
    expect(resultInfo(events.at(-1)!)).toMatchObject({
      usage: { inputTokens: 14_948, outputTokens: 103 },
      requestId: "00000001",
    });
  });
});

describe("docs-multica-ai-multica", () => {
  it("reads all four usage counters", () => {
    const [result] = eventsOf("docs-multica-ai-multica");
    expect(resultInfo(result!)?.usage).toEqual({
      inputTokens: 26_640,
      outputTokens: 40,
      cacheReadTokens: 467,
      cacheWriteTokens: 12,
    });
  });
});

describe("xpadev-net-agentic-automation excerpts", () => {
  it("HEAD: empty thinking deltas and two parallel calls (read + ls) left open", () => {
    const events = eventsOf("xpadev-net-agentic-automation--sample-log-HEAD-excerpt");
    const deltas = byType(events, "thinking", "delta");
    expect(deltas).toHaveLength(14);
    expect(deltas.every((event) => event.data.text === "")).toBe(true);
    const started = byType(events, "tool_call", "started").map(toolCallInfo);
    expect(started).toMatchObject([
      {
        callId: "tool_d35d82bb-a1d8-4342-a07b-9e321edd96f",
        kind: "read",
        path: "specs/001-github-agent-automation/tasks.md",
        modelCallId: "249b8740-a695-40d7-9f05-898e6a263ede",
      },
      {
        callId: "tool_561f4199-bea8-4217-94e5-4dde1986861",
        kind: "ls",
        path: "specs/001-github-agent-automation",
      },
    ]);
  });

  it("TAIL: a grep with no matches, a final assistant without ids, a result without usage", () => {
    const events = eventsOf("xpadev-net-agentic-automation--sample-log-TAIL-excerpt");
    const [grep] = byType(events, "tool_call", "completed");
    expect(toolCallInfo(grep!)).toMatchObject({
      kind: "grep",
      pattern: "check_suite|CheckSuite",
      directory: "internal/webhooks/server.go",
    });
    expect(toolResult(grep!)).toMatchObject({
      ok: true,
      matchCount: 0,
      fileCount: 0,
      summary: "0 matches in 0 files",
    });
    const final = byType(events, "assistant").map(assistantMessage).at(-1);
    expect(final?.form).toBe("final");
    const result = resultInfo(events.at(-1)!);
    expect(result?.durationMs).toBe(81_383);
    expect(result?.usage).toBeUndefined();
    expect(result?.text.endsWith(final!.text)).toBe(true);
  });
});

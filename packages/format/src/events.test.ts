import { type AgentEvent, createLineFramer, parseLine } from "@cursor-wrap/events";
import { contractSchemas } from "@cursor-wrap/events/schemas";
import { realCaptures } from "@cursor-wrap/fixtures";
import type { Reason } from "@cursor-wrap/monitor";
import { agentEvents as ev } from "@cursor-wrap/testkit";
import { describe, expect, it } from "vitest";
import { createFormatter } from "./create-formatter.js";
import type { FormatterOptions, Output } from "./types.js";

function sink() {
  const chunks: string[] = [];
  const out: Output & {
    events(): Array<{ type: string; turnId?: string; data: Record<string, unknown> }>;
  } = {
    write(chunk) {
      chunks.push(Buffer.from(chunk).toString("utf8"));
      return true;
    },
    events: () =>
      chunks
        .join("")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
  };
  return { out, chunks };
}

const REASON: Reason = {
  kind: "idle",
  idleMs: 60_000,
  openCallCount: 0,
  openCalls: [],
  message: "no output for 1m",
};
const context = {
  sessionId: "7f1c2d3e-0000-4000-8000-000000000001",
  requestId: "5bf03e32-be64-48d4-a5ed-c4a0a939b88c",
};
const summary = { durationMs: 1, toolCalls: 0, outcome: "completed" };

function setUp(options: FormatterOptions = {}) {
  const { out, chunks } = sink();
  const formatter = createFormatter("events", out, options);
  const feed = (events: AgentEvent[]) => {
    for (const event of events) formatter.write(event);
    formatter.flush();
  };
  return { out, chunks, formatter, feed };
}

describe("createFormatter('events')", () => {
  it("writes every real capture as contract events, one chunk's lines in one write", () => {
    for (const capture of realCaptures()) {
      const { out, chunks, formatter, feed } = setUp({ contract: { turnId: "t" } });
      formatter.startTurn();
      const framer = createLineFramer();
      feed([...framer.push(capture.bytes), ...framer.end()]);
      const writes = chunks.length;
      formatter.endTurn(summary);
      formatter.close();
      const events = out.events();
      expect(writes, capture.name).toBeLessThanOrEqual(1);
      expect(events[0]?.type).toBe("protocol");
      expect(events.filter((event) => event.type === "done")).toHaveLength(1);
      expect(events.at(-1)?.type).toBe("done");
      for (const event of events) {
        expect(contractSchemas.ContractEvent.safeParse(event).success).toBe(true);
        expect(event.turnId).toBe("t");
      }
    }
  });

  it("writes the agent's C1 and bidi controls as escapes: the same text, nothing for a terminal", () => {
    const { out, chunks, formatter, feed } = setUp();
    formatter.startTurn();
    const text = "red \u009b31m and \u202eevil\u202c";
    feed([
      parseLine(
        `${JSON.stringify({ type: "assistant", message: { content: [{ type: "text", text }] } })}\n`,
      ),
    ]);
    formatter.close();
    expect(chunks.join("")).not.toMatch(/[\u009b\u202e\u202c]/);
    expect(out.events().find((event) => event.type === "assistant_delta")?.data).toMatchObject({
      content: text,
    });
  });

  it("writes a call whose arguments nest deeper than JSON.stringify goes, its depths noted", () => {
    for (const depth of [20_000, 200_000]) {
      const deep = `${"[".repeat(depth)}"ls"${"]".repeat(depth)}`;
      const shapes = [
        `{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":${deep}}}}}`,
        // The generic shape: its arguments are JSON text, parsed for the contract.
        `{"type":"tool_call","subtype":"started","call_id":"c2","tool_call":{"function":{"name":"f","arguments":${JSON.stringify(`{"a":${deep}}`)}}}}`,
      ];
      for (const line of shapes) {
        const { out, formatter, feed } = setUp();
        formatter.startTurn();
        feed([parseLine(line)]);
        formatter.endTurn(summary);
        formatter.close();
        const events = out.events();
        const call = events.find((event) => event.type === "tool_call");
        expect(call?.data.status).toBe("started");
        expect(JSON.stringify(call?.data.args)).toContain('"[nested too deep to write]"');
        expect(events.at(-1)?.type).toBe("done");
        for (const event of events) {
          expect(contractSchemas.ContractEvent.safeParse(event).success).toBe(true);
        }
      }
    }
  });

  it("a hang retried, then one that ends the turn: HANG non-fatal, then fatal, done error", () => {
    const { out, formatter, feed } = setUp();
    formatter.startTurn();
    feed([parseLine(JSON.stringify(ev.init(context)))]);
    formatter.wrapper({ kind: "hang", reason: REASON, terminal: false });
    formatter.wrapper({
      kind: "retry",
      attempt: 1,
      maxAttempts: 1,
      reason: REASON,
      failure: "hang",
      action: "resume",
    });
    formatter.startTurn();
    formatter.wrapper({ kind: "hang", reason: REASON, terminal: true });
    formatter.endTurn({ ...summary, outcome: "hang" });
    expect(out.events().map((event) => [event.type, event.data])).toEqual([
      ["protocol", { version: "1.0" }],
      ["error", { code: "HANG", message: "no output for 1m", fatal: false }],
      ["error", { code: "HANG", message: "no output for 1m", fatal: false }],
      ["error", { code: "HANG", message: "no output for 1m", fatal: true }],
      ["done", { finishReason: "error" }],
    ]);
  });

  it("each failure by its code; an exit nothing names is ABNORMAL_EXIT", () => {
    const { out, formatter } = setUp();
    formatter.startTurn();
    formatter.wrapper({
      kind: "retry",
      attempt: 1,
      maxAttempts: 3,
      message: "overloaded: retry 1 of 3 in 2s",
      failure: "overloaded",
    });
    formatter.wrapper({ kind: "error", message: "not signed in", terminal: true, failure: "auth" });
    formatter.endTurn({ ...summary, outcome: "abnormal" });
    formatter.startTurn();
    formatter.wrapper({ kind: "error", message: "exited with code 3", terminal: true });
    formatter.endTurn({ ...summary, outcome: "abnormal" });
    const errors = out
      .events()
      .filter((event) => event.type === "error")
      .map((event) => [event.data.code, event.data.fatal]);
    expect(errors).toEqual([
      ["MODEL_OVERLOADED", false],
      ["MODEL_AUTH_ERROR", true],
      ["ABNORMAL_EXIT", true],
    ]);
    expect(out.events().filter((event) => event.type === "protocol")).toHaveLength(2);
  });

  it("a linger keeps the answer: LINGER non-fatal, done stop", () => {
    const { out, formatter, feed } = setUp();
    formatter.startTurn();
    feed([
      parseLine(JSON.stringify(ev.assistant(context, "All done."))),
      parseLine(JSON.stringify(ev.result(context, "All done."))),
    ]);
    formatter.wrapper({ kind: "linger", reason: REASON, terminal: false });
    formatter.endTurn({ ...summary, outcome: "linger" });
    expect(out.events().map((event) => event.type)).toEqual([
      "protocol",
      "assistant_delta",
      "error",
      "done",
    ]);
    expect(out.events().at(-1)?.data).toEqual({ finishReason: "stop" });
    expect(formatter.partialResult()).toBe("");
  });

  it("a cancel ends the turn with done cancelled", () => {
    const { out, formatter } = setUp();
    formatter.startTurn();
    formatter.wrapper({ kind: "cancelled", signal: "SIGTERM", terminal: true });
    formatter.endTurn({ ...summary, outcome: "cancelled" });
    expect(out.events().at(-1)).toEqual({ type: "done", data: { finishReason: "cancelled" } });
  });

  it("a turn the run could not finish still ends with RUN_FAILED and done, at close", () => {
    const { out, formatter } = setUp();
    formatter.startTurn();
    formatter.close();
    formatter.close();
    expect(
      out.events().map((event) => [event.type, event.data.code ?? event.data.finishReason]),
    ).toEqual([
      ["protocol", undefined],
      ["error", "RUN_FAILED"],
      ["done", "error"],
    ]);
  });
});

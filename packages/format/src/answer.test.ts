import {
  type AgentEvent,
  assistantMessage,
  createLineFramer,
  parseLine,
  resultInfo,
} from "@cursor-wrap/events";
import { realCaptures } from "@cursor-wrap/fixtures";
import { describe, expect, it } from "vitest";
import { combineFormatters, createAnswerFormatter } from "./answer.js";
import { createFormatter } from "./create-formatter.js";
import type { Output } from "./types.js";

function sink(): Output & { text(): string } {
  const chunks: string[] = [];
  return {
    write(chunk) {
      chunks.push(Buffer.from(chunk).toString("utf8"));
      return true;
    },
    text: () => chunks.join(""),
  };
}

const eventsOf = (bytes: Buffer): AgentEvent[] => {
  const framer = createLineFramer();
  return [...framer.push(bytes), ...framer.end()];
};

describe("createAnswerFormatter", () => {
  it.each(
    realCaptures()
      .filter((capture) => eventsOf(capture.bytes).some((event) => resultInfo(event)))
      .map((capture) => [capture.name, capture] as const),
  )("prints only the final answer of %s", (_name, capture) => {
    const events = eventsOf(capture.bytes);
    const out = sink();
    const formatter = createAnswerFormatter(out);
    for (const event of events) formatter.write(event);
    formatter.endTurn({ durationMs: 0, toolCalls: 0, outcome: "completed" });
    const messages = events
      .map(assistantMessage)
      .filter((message) => message !== undefined && message.form !== "echo" && message.text);
    const result = events.map(resultInfo).find(Boolean)!;
    const expected = messages.at(-1)?.form === "delta" ? undefined : messages.at(-1)?.text;
    const answer = expected ?? result.text;
    if (messages.at(-1)?.form !== "delta") {
      expect(out.text()).toBe(answer ? `${answer.replace(/\n$/, "")}\n` : "");
    }
    expect(out.text()).not.toContain('"type"');
  });

  it("prints the text streamed since the last tool call with partial output", () => {
    const out = sink();
    const formatter = createAnswerFormatter(out);
    const assistant = (text: string, extra: Record<string, unknown>) =>
      parseLine(
        `${JSON.stringify({ type: "assistant", message: { content: [{ type: "text", text }] }, ...extra })}\n`,
      );
    for (const event of [
      assistant("Looking", { timestamp_ms: 1 }),
      parseLine(
        '{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"lsToolCall":{"args":{"path":"."}}}}\n',
      ),
      assistant("All ", { timestamp_ms: 2 }),
      assistant("done.", { timestamp_ms: 3 }),
      assistant("All done.", {}),
      parseLine('{"type":"result","subtype":"success","result":"LookingAll done."}\n'),
    ]) {
      formatter.write(event);
    }
    expect(out.text()).toBe("All done.\n");
  });
});

describe("combineFormatters", () => {
  it("renders to every formatter, and answers with the first one's text", () => {
    const answer = sink();
    const text = sink();
    const both = combineFormatters(createAnswerFormatter(answer), createFormatter("text", text));
    both.startTurn();
    for (const event of eventsOf(realCaptures()[0]!.bytes)) both.write(event);
    both.flush();
    both.endTurn({ durationMs: 1, toolCalls: 0, outcome: "completed" });
    both.close();
    expect(text.text().length).toBeGreaterThan(answer.text().length);
  });

  it("passes why the run failed on to each formatter's close", () => {
    const events = sink();
    const both = combineFormatters(
      createAnswerFormatter(sink()),
      createFormatter("events", events),
    );
    both.startTurn();
    both.close("cannot start the agent");
    expect(events.text()).toContain("the run ended before the turn did: cannot start the agent");
  });
});

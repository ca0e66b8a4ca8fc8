import { realCaptures } from "@cursor-wrap/fixtures";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLineFramer } from "./line-framer.js";
import { eventTypeOf, parseLine } from "./parse-line.js";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("parseLine", () => {
  it("parses a JSON object into an event that keeps the exact bytes", () => {
    const event = parseLine('{"type":"tool_call","subtype":"started","call_id":"a\\nb"}\n');
    expect(event.kind).toBe("json");
    if (event.kind !== "json") return;
    expect(event.type).toBe("tool_call");
    expect(event.subtype).toBe("started");
    expect(event.data.call_id).toBe("a\nb");
    expect(event.eol).toBe("\n");
    expect(event.raw.toString()).toBe(
      '{"type":"tool_call","subtype":"started","call_id":"a\\nb"}\n',
    );
    expect(event.line.toString()).toBe(
      '{"type":"tool_call","subtype":"started","call_id":"a\\nb"}',
    );
  });

  it("keeps bare text such as the free-plan `T: ...` line as text", () => {
    const event = parseLine("T: Named models unavailable Free plans can only use Auto.");
    expect(event).toMatchObject({ kind: "text", reason: "not-json", eol: "" });
    expect(event.kind === "text" && event.text).toBe(
      "T: Named models unavailable Free plans can only use Auto.",
    );
  });

  it("keeps JSON that is not an object as text", () => {
    for (const line of ["[1,2]", "42", '"x"', "null", "true", "-1.5e3"]) {
      expect(parseLine(line), line).toMatchObject({ kind: "text", reason: "not-object" });
    }
  });

  it("keeps malformed JSON as text", () => {
    for (const line of ["{", '{"type":', "{}}", "nope", "", "   ", "\t{oops"]) {
      expect(parseLine(line), JSON.stringify(line)).toMatchObject({
        kind: "text",
        reason: "not-json",
      });
    }
  });

  it("keeps invalid UTF-8 as text, with its exact bytes", () => {
    const bytes = Buffer.from([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]);
    const event = parseLine(bytes);
    expect(event).toMatchObject({ kind: "text", reason: "invalid-utf8" });
    expect(event.raw.equals(bytes)).toBe(true);
  });

  it("parses objects with unknown or missing types", () => {
    expect(parseLine('{"type":"brand_new","subtype":7}')).toMatchObject({
      kind: "json",
      type: "brand_new",
      subtype: undefined,
    });
    expect(parseLine('{"hello":"world"}')).toMatchObject({ kind: "json", type: undefined });
    expect(parseLine('  {"type":"user"}  ')).toMatchObject({ kind: "json", type: "user" });
  });

  it("takes a trailing CRLF or CR as the terminator", () => {
    expect(parseLine('{"type":"user"}\r\n')).toMatchObject({ kind: "json", eol: "\r\n" });
    expect(parseLine('{"type":"user"}\r')).toMatchObject({ kind: "json", eol: "\r" });
  });

  it("stamps the receive time it is given", () => {
    const recvAt = { mono: 5, epoch: 1_770_823_845_400 };
    expect(parseLine("{}", recvAt).recvAt).toBe(recvAt);
  });
});

describe("eventTypeOf", () => {
  it("names events by type and subtype", () => {
    expect(eventTypeOf(parseLine('{"type":"thinking","subtype":"delta"}'))).toBe("thinking/delta");
    // The last pair is remembered: a pair that differs in either part is joined anew.
    expect(eventTypeOf(parseLine('{"type":"thinking","subtype":"delta"}'))).toBe("thinking/delta");
    expect(eventTypeOf(parseLine('{"type":"thinking","subtype":"completed"}'))).toBe(
      "thinking/completed",
    );
    expect(eventTypeOf(parseLine('{"type":"tool_call","subtype":"completed"}'))).toBe(
      "tool_call/completed",
    );
    expect(eventTypeOf(parseLine('{"type":"tool_call"}'))).toBe("tool_call");
    expect(eventTypeOf(parseLine('{"type":"assistant"}'))).toBe("assistant");
    expect(eventTypeOf(parseLine("{}"))).toBe("unknown");
    expect(eventTypeOf(parseLine("T: x"))).toBe("text");
  });
});

describe("the hot path", () => {
  it("calls JSON.parse once per JSON-looking line and never for bare text", () => {
    const parse = vi.spyOn(JSON, "parse");
    const framer = createLineFramer();
    let lines = 0;
    for (const capture of realCaptures()) {
      lines += framer.push(capture.bytes).length;
    }
    framer.push(Buffer.from("T: plan error\nanother bare line\n"));
    expect(parse).toHaveBeenCalledTimes(lines);
  });
});

describe("a result line above the parse cap", () => {
  it("is still the turn's result, known by its head", async () => {
    const { createLineFramer } = await import("./line-framer.js");
    const { resultInfo, toMonitorSignal } = await import("./extract.js");
    const line = `{"type":"result","subtype":"success","is_error":true,"duration_ms":5,"result":"${"x".repeat(100_000)}","session_id":"s"}\n`;
    const framer = createLineFramer({ parseCap: 10_000 });
    const [first, ...rest] = framer.push(Buffer.from(line));
    expect(first?.kind).toBe("oversize");
    expect(toMonitorSignal(first!)).toEqual({ type: "done", eventType: "result" });
    expect(resultInfo(first!)).toEqual({ subtype: "success", isError: true, text: "" });
    for (const piece of rest) expect(toMonitorSignal(piece).type).toBe("activity");
  });
});

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { realCaptures } from "@cursor-wrap/fixtures";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { type ContractEvent, createContractNormalizer } from "./contract.js";
import { CONTRACT_ERROR_CODES, CONTRACT_ERRORS, contractErrorCode } from "./contract-errors.js";
import { assistantMessage, resultInfo, toolCallInfo } from "./index.js";
import { createLineFramer } from "./line-framer.js";
import { parseLine } from "./parse-line.js";
import { contractSchemas } from "./schemas.js";
import type { AgentEvent } from "./types.js";

const here = fileURLToPath(new URL(".", import.meta.url));

function normalise(
  events: readonly AgentEvent[],
  options: Parameters<typeof createContractNormalizer>[0] = {},
): ContractEvent[] {
  const normalizer = createContractNormalizer(options);
  const out: ContractEvent[] = [];
  for (const event of events) out.push(...normalizer.push(event));
  out.push(...normalizer.end());
  return out;
}

const lines = (...values: object[]): AgentEvent[] =>
  values.map((value) => parseLine(JSON.stringify(value)));

/** The generated JSON Schema of the normalised events (from the build). */
function jsonSchemaValidator() {
  const file = join(here, "..", "dist", "json-schema", "ContractEvent.schema.json");
  const ajv = new Ajv2020({ strict: true });
  return ajv.compile(JSON.parse(readFileSync(file, "utf8")) as object);
}

describe("createContractNormalizer over every real capture", () => {
  const validate = jsonSchemaValidator();
  for (const capture of realCaptures()) {
    it(`${capture.name}: protocol first, done once last, every event valid (zod and JSON Schema)`, () => {
      const framer = createLineFramer();
      const events = [...framer.push(capture.bytes), ...framer.end()];
      const out = normalise(events, { turnId: "t-1" });
      expect(out[0]).toEqual({ type: "protocol", turnId: "t-1", data: { version: "1.0" } });
      expect(out.filter((event) => event.type === "done")).toHaveLength(1);
      expect(out.at(-1)?.type).toBe("done");
      for (const event of out) {
        const parsed = contractSchemas.ContractEvent.safeParse(event);
        expect(parsed.success, parsed.error?.message).toBe(true);
        expect(validate(event), JSON.stringify(validate.errors)).toBe(true);
        expect(event.turnId).toBe("t-1");
      }
      // Every call that started ends once, with the same name (the excerpts may cut either end).
      const started = new Map<string, string>();
      for (const event of out) {
        if (event.type !== "tool_call") continue;
        if (event.data.status === "started") started.set(event.data.id, event.data.name);
        else if (started.has(event.data.id)) {
          expect(event.data.name).toBe(started.get(event.data.id));
          started.delete(event.data.id);
        }
      }
      // Every call started is ended: by the agent, or (a capture cut short) as failed by `done`.
      expect([...started.keys()]).toEqual([]);
      const calls = events.filter(
        (event) => event.kind === "json" && event.type === "tool_call",
      ).length;
      const abandoned = out.filter(
        (event) =>
          event.type === "tool_call" && event.data.summary === "the turn ended before the call did",
      ).length;
      expect(out.filter((event) => event.type === "tool_call")).toHaveLength(calls + abandoned);
      // Usage when, and only when, the result reports it; done says how the result went.
      const result = events.map(resultInfo).find(Boolean);
      expect(out.some((event) => event.type === "usage")).toBe(result?.usage !== undefined);
      expect(out.at(-1)).toMatchObject({
        data: { finishReason: result && !result.isError ? "stop" : "error" },
      });
    });
  }

  it("gives the assistant's text once: each message's text, in order", () => {
    let compared = 0;
    for (const capture of realCaptures()) {
      const framer = createLineFramer();
      const events = [...framer.push(capture.bytes), ...framer.end()];
      // None of the captures streams partial output: every message arrives once.
      const said = events.map((event) => assistantMessage(event)?.text ?? "").join("");
      const text = normalise(events)
        .map((event) => (event.type === "assistant_delta" ? event.data.content : ""))
        .join("");
      const result = events.map(resultInfo).find(Boolean);
      // No message at all (a result alone, as `--output-format json` prints): the result's text.
      const answer = said === "" && result && !result.isError ? result.text : said;
      expect(text, capture.name).toBe(answer);
      if (said !== "") compared += 1;
      if (capture.name === "docs-multica-ai-multica") expect(text).toBe("pong");
      // Where the result repeats every message, run together, it is the same text.
      if (capture.name === "reifying-cursor-hack--direct-sleep") expect(text).toBe(result?.text);
    }
    expect(compared).toBeGreaterThanOrEqual(8);
  });

  it("names each call by its canonical name, with its arguments and how it ended", () => {
    const capture = realCaptures().find(
      (entry) => entry.name === "reifying-cursor-hack--direct-sleep",
    )!;
    const framer = createLineFramer();
    const events = [...framer.push(capture.bytes), ...framer.end()];
    const calls = normalise(events).filter((event) => event.type === "tool_call");
    expect(calls.map((event) => [event.data.name, event.data.status])).toEqual([
      ["shell", "started"],
      ["shell", "completed"],
      ["shell", "started"],
      ["shell", "completed"],
    ]);
    expect(calls[0]!.data.args).toMatchObject({ command: "sleep 5" });
    expect(calls[1]!.data).toMatchObject({ summary: "exit 0" });
    expect(calls[1]!.data.durationMs).toBeGreaterThanOrEqual(5_000);
  });
});

const ASSISTANT = { type: "assistant", session_id: "s" };
const say = (text: string, extra: object = {}) => ({
  ...ASSISTANT,
  message: { role: "assistant", content: [{ type: "text", text }] },
  ...extra,
});

describe("assistant_delta", () => {
  it("under partial output: the deltas, not their copies nor the final repeat", () => {
    const out = normalise(
      lines(
        say("Hel", { timestamp_ms: 1 }),
        say("lo", { timestamp_ms: 2 }),
        say("Hello", { model_call_id: "m1" }),
        say("Hello, world"),
      ),
    );
    expect(
      out.filter((event) => event.type === "assistant_delta").map((event) => event.data),
    ).toEqual([{ content: "Hel" }, { content: "lo" }, { content: ", world" }]);
  });

  it("without it: one delta per message", () => {
    const out = normalise(
      lines(say("First.", { model_call_id: "m1", timestamp_ms: 1 }), say("Last.")),
    );
    expect(
      out.filter((event) => event.type === "assistant_delta").map((event) => event.data.content),
    ).toEqual(["First.", "Last."]);
  });
});

const shellStart = (id: string, command: string, extra: object = {}) => ({
  type: "tool_call",
  subtype: "started",
  call_id: id,
  session_id: "s",
  tool_call: { shellToolCall: { args: { command } } },
  ...extra,
});
const mcpStart = (id: string, provider: string, tool: string) => ({
  type: "tool_call",
  subtype: "started",
  call_id: id,
  session_id: "s",
  tool_call: { mcpToolCall: { args: { providerIdentifier: provider, toolName: tool, args: {} } } },
});

describe("the turn's tools", () => {
  it("a call outside the allow-list is TOOL_NOT_ALLOWED, right after its start", () => {
    const out = normalise(lines(shellStart("c1", "rm -rf /")), { tools: [{ name: "read" }] });
    expect(out.map((event) => event.type)).toEqual([
      "protocol",
      "tool_call",
      "error",
      "tool_call",
      "done",
    ]);
    expect(out[2]!.data).toMatchObject({ code: "TOOL_NOT_ALLOWED", fatal: false });
    // The call never ended: `done` ends it, failed.
    expect(out[3]!.data).toMatchObject({ id: "c1", status: "failed" });
    expect(out[4]!.data).toEqual({ finishReason: "error" });
  });

  it("enforced, the error is fatal and a later fatal one of the same code is not repeated", () => {
    const normalizer = createContractNormalizer({ tools: [], enforceTools: true });
    const out = [
      ...normalizer.push(parseLine(JSON.stringify(shellStart("c1", "ls")))),
      ...normalizer.error("tool-not-allowed", "stopped", true),
      ...normalizer.end(),
    ];
    expect(out.filter((event) => event.type === "error").map((event) => event.data)).toEqual([
      {
        code: "TOOL_NOT_ALLOWED",
        message: 'the agent called "shell", which the turn does not allow (allowed: none)',
        fatal: true,
      },
    ]);
    expect(normalizer.failed).toBe(true);
  });

  it("MCP tools by server prefix; arguments checked by the tool's own check", () => {
    const tools = [
      { name: "mcp/github" },
      {
        name: "shell",
        validate: (args: Record<string, unknown>) =>
          args.command === "ls" ? undefined : "only ls",
      },
    ];
    const out = normalise(
      lines(
        mcpStart("m1", "github", "search_issues"),
        mcpStart("m2", "slack", "post"),
        shellStart("c1", "ls"),
        shellStart("c2", "rm x"),
      ),
      { tools },
    );
    const errors = out.filter((event) => event.type === "error").map((event) => event.data);
    expect(errors).toEqual([
      expect.objectContaining({
        code: "TOOL_NOT_ALLOWED",
        message: expect.stringContaining('"mcp/slack/post"'),
      }),
      expect.objectContaining({
        code: "TOOL_ARGS_INVALID",
        message: expect.stringContaining("only ls"),
      }),
    ]);
    const names = out.flatMap((event) =>
      event.type === "tool_call" && event.data.status === "started" ? [event.data.name] : [],
    );
    expect(names).toEqual(["mcp/github/search_issues", "mcp/slack/post", "shell", "shell"]);
  });

  it("ends every call still open, failed: at done, and when the caller abandons an attempt", () => {
    const normalizer = createContractNormalizer();
    const out = [
      ...normalizer.push(parseLine(JSON.stringify(shellStart("c1", "sleep 600")))),
      ...normalizer.abandonCalls("the attempt ended before the call did (retried)"),
      ...normalizer.abandonCalls("nothing is open now"),
      ...normalizer.push(parseLine(JSON.stringify(shellStart("c2", "ls")))),
      ...normalizer.end("cancelled"),
    ];
    expect(
      out.filter((event) => event.type === "tool_call").map((event) => event.data),
    ).toMatchObject([
      { id: "c1", status: "started" },
      { id: "c1", status: "failed", summary: "the attempt ended before the call did (retried)" },
      { id: "c2", status: "started" },
      { id: "c2", status: "failed", summary: "cancelled: the turn ended before the call did" },
    ]);
    expect(out.at(-1)).toMatchObject({ type: "done", data: { finishReason: "cancelled" } });
  });

  it("does not end an abandoned call twice when the resumed agent reports its end", () => {
    const normalizer = createContractNormalizer();
    const ended = {
      type: "tool_call",
      subtype: "completed",
      call_id: "c1",
      tool_call: { shellToolCall: { args: { command: "sleep 600" }, result: { success: {} } } },
    };
    const out = [
      ...normalizer.push(parseLine(JSON.stringify(shellStart("c1", "sleep 600")))),
      ...normalizer.abandonCalls("the attempt ended before the call did (retried)"),
      ...normalizer.push(parseLine(JSON.stringify(ended))),
    ];
    expect(
      out.filter((event) => event.type === "tool_call").map((event) => event.data.status),
    ).toEqual(["started", "failed"]);
  });

  it("reads the generic function shape by its function's name and parsed arguments", () => {
    const event = parseLine(
      JSON.stringify({
        type: "tool_call",
        subtype: "started",
        call_id: "f1",
        tool_call: { function: { name: "exec", arguments: '{"command":"pwd"}' } },
      }),
    );
    expect(toolCallInfo(event)?.kind).toBe("function");
    const [, call] = normalise([event]);
    expect(call?.data).toEqual({
      id: "f1",
      name: "exec",
      args: { command: "pwd" },
      status: "started",
    });
  });
});

describe("errors and done", () => {
  it("done exactly once; nothing after it", () => {
    const normalizer = createContractNormalizer();
    expect(normalizer.end("cancelled").map((event) => event.type)).toEqual(["protocol", "done"]);
    expect(normalizer.end()).toEqual([]);
    expect(normalizer.error("hang", "late", true)).toEqual([]);
    expect(normalizer.push(parseLine(JSON.stringify(say("late"))))).toEqual([]);
    expect(normalizer.ended).toBe(true);
  });

  it("the agent's error events are AGENT_ERROR unless the caller names failures itself", () => {
    const event = lines({ type: "error", message: "boom" });
    expect(normalise(event).find((item) => item.type === "error")?.data).toEqual({
      code: "AGENT_ERROR",
      message: "boom",
      fatal: false,
    });
    expect(normalise(event, { agentErrors: false }).map((item) => item.type)).toEqual([
      "protocol",
      "done",
    ]);
  });

  it("a result that says is_error is RESULT_ERROR, and usage with cache tokens", () => {
    const out = normalise(
      lines({
        type: "result",
        subtype: "success",
        is_error: true,
        result: "could not do it",
        session_id: "s",
        usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 7 },
      }),
    );
    expect(out.slice(1).map((event) => event.data)).toEqual([
      { promptTokens: 10, completionTokens: 2, cacheReadTokens: 7 },
      { code: "RESULT_ERROR", message: "could not do it", fatal: true },
      { finishReason: "error" },
    ]);
  });

  it("keeps only counts a count can be: negative, hexadecimal or infinite ones are dropped", () => {
    const out = normalise(
      lines({
        type: "result",
        subtype: "success",
        is_error: false,
        result: "ok",
        duration_ms: -5,
        session_id: "s",
        usage: {
          inputTokens: "12",
          outputTokens: 1e308,
          cacheReadTokens: -3,
          cacheWriteTokens: "0x10",
        },
      }),
    );
    const usage = out.find((event) => event.type === "usage");
    expect(usage?.data).toEqual({ promptTokens: 12, completionTokens: 1e308 });
    for (const event of out)
      expect(contractSchemas.ContractEvent.safeParse(event).success).toBe(true);
    expect(resultInfo(lines({ type: "result", duration_ms: -5 })[0]!)?.durationMs).toBeUndefined();
  });

  it("a verdict's code from the table; unknown names are AGENT_ERROR", () => {
    expect(contractErrorCode("hang")).toBe("HANG");
    expect(contractErrorCode("auth")).toBe("MODEL_AUTH_ERROR");
    expect(contractErrorCode("usage-limit")).toBe("USAGE_LIMIT");
    expect(contractErrorCode("constructor")).toBe("AGENT_ERROR");
    expect(new Set(CONTRACT_ERROR_CODES).size).toBe(Object.keys(CONTRACT_ERRORS).length);
  });
});

describe("contractSchemas.ContractTurn", () => {
  const turn = {
    type: "turn",
    turnId: "t1",
    messages: [{ role: "user", content: "hi" }],
    tools: [{ name: "shell", schema: { type: "object" } }],
  };
  it("takes the contract's example", () => {
    expect(contractSchemas.ContractTurn.safeParse(turn).success).toBe(true);
  });
  it.each([
    ["a misspelt key", { ...turn, tool: [] }],
    ["no messages", { ...turn, messages: [] }],
    ["an unknown role", { ...turn, messages: [{ role: "robot", content: "x" }] }],
    ["only empty messages", { ...turn, messages: [{ role: "user", content: "  " }] }],
    ["a tool twice", { ...turn, tools: [{ name: "shell" }, { name: "shell" }] }],
    ["no turnId", { ...turn, turnId: undefined }],
  ])("refuses %s", (_name, input) => {
    expect(contractSchemas.ContractTurn.safeParse(input).success).toBe(false);
  });
});

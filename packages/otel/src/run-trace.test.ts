import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import * as incubating from "@opentelemetry/semantic-conventions/incubating";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  hangGivenUp,
  hangThenSuccess,
  RUN_START,
  rateLimitedThenSuccess,
  SESSION,
  type Step,
  usageLimitGivenUp,
} from "./__fixtures__/records.js";
import { ERROR_TIMEOUT, GENAI, OPERATION } from "./genai-attributes.js";
import { openRunTrace } from "./open-run-trace.js";
import type { RunTrace, RunTraceOptions } from "./run-trace.js";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "./testing.js";

const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";

let receiver: OtlpReceiver;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
});

async function traced(steps: Step[], options: RunTraceOptions = {}): Promise<RunTrace> {
  const trace = await openRunTrace({
    endpoint: receiver.endpoint,
    env: {},
    tool: { name: "cursor-wrap", version: "9.9.9" },
    now: () => RUN_START,
    ...options,
  });
  for (const step of steps) trace.record(step.message, step.fields);
  await trace.shutdown();
  return trace;
}

const named = (spans: ReceivedSpan[], name: string): ReceivedSpan[] =>
  spans.filter((span) => span.name === name);

describe("the trace of a run, as an OTLP/HTTP receiver gets it", () => {
  it("is an invoke_agent span with an attempt per agent start and an execute_tool span per call", async () => {
    const trace = await traced(hangThenSuccess, {
      env: { TRACEPARENT: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`, OTEL_SERVICE_NAME: "nightly" },
    });
    const spans = await receiver.waitFor((received) => received.length >= 6);
    expect(receiver.contentTypes.every((type) => type.startsWith("application/json"))).toBe(true);
    expect(spans.map((span) => span.name).sort()).toEqual([
      "attempt",
      "attempt",
      "execute_tool read",
      "execute_tool shell",
      "execute_tool shell",
      "invoke_agent cursor-agent",
    ]);
    // One trace, the caller's: the run is a child of the span TRACEPARENT named.
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([CALLER_TRACE]));
    expect(trace.traceId).toBe(CALLER_TRACE);
    const [run] = named(spans, "invoke_agent cursor-agent");
    expect(run!.parentSpanId).toBe(CALLER_SPAN);
    expect(run!.kind).toBe(3); // SPAN_KIND_CLIENT
    expect(run!.resource["service.name"]).toBe("nightly");
    expect(run!.scope).toBe("cursor-wrap");
    expect(run!.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": "cursor",
      "gen_ai.agent.name": "cursor-agent",
      "gen_ai.agent.version": "2026.01.28-fd13201",
      "gen_ai.conversation.id": SESSION,
      "gen_ai.request.model": "gpt-5",
      "gen_ai.usage.input_tokens": 11,
      "gen_ai.usage.output_tokens": 22,
      "gen_ai.usage.cache_read.input_tokens": 303,
      "gen_ai.usage.cache_creation.input_tokens": 44,
      "cursor_wrap.outcome": "completed",
      "cursor_wrap.exit_code": 0,
      "cursor_wrap.log_path": "/logs/run-s.hang.jsonl",
    });
    // A run that recovered is no error.
    expect(run!.attributes["error.type"]).toBeUndefined();
    expect(run!.status.code).toBe(0);
    expect(run!.startMs).toBe(RUN_START);

    const attempts = named(spans, "attempt").sort((a, b) => a.startMs - b.startMs);
    expect(attempts.map((span) => span.parentSpanId)).toEqual([run!.spanId, run!.spanId]);
    const [hung, resumed] = attempts;
    expect(hung!.attributes).toMatchObject({
      "cursor_wrap.turn": 1,
      "cursor_wrap.attempt": 1,
      "process.pid": 4242,
      "error.type": ERROR_TIMEOUT,
      "cursor_wrap.outcome": "hang",
      "gen_ai.usage.input_tokens": 10,
    });
    expect(hung!.status.code).toBe(2); // STATUS_CODE_ERROR
    expect(hung!.events.map((event) => event.name)).toEqual(["hang", "killed"]);
    expect(hung!.events[0]!.attributes).toMatchObject({
      "cursor_wrap.verdict": "hang",
      "cursor_wrap.summary": "Hang detected: shell call open 1.0s past its grace",
    });
    expect(JSON.parse(String(hung!.events[0]!.attributes["cursor_wrap.reason"]))).toEqual({
      kind: "tool",
      call_id: "call_2",
    });
    // The retry is decided once the attempt is over: an event of the run.
    expect(run!.events.map((event) => event.name)).toEqual(["retry"]);
    expect(run!.events[0]!.attributes).toMatchObject({
      "cursor_wrap.retry.action": "resume",
      "cursor_wrap.retry.kind": "hang",
    });
    expect(resumed!.attributes).toMatchObject({
      "cursor_wrap.turn": 2,
      "cursor_wrap.attempt": 2,
      "cursor_wrap.outcome": "completed",
      "gen_ai.conversation.id": SESSION,
    });
    expect(resumed!.attributes["error.type"]).toBeUndefined();

    const tools = spans.filter((span) => span.name.startsWith("execute_tool"));
    const byId = new Map(tools.map((span) => [span.attributes["gen_ai.tool.call.id"], span]));
    expect(byId.get("call_1")).toMatchObject({
      parentSpanId: hung!.spanId,
      startMs: hangThenSuccess[5]!.fields.time,
      endMs: hangThenSuccess[6]!.fields.time,
      attributes: {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "read",
        "gen_ai.tool.type": "function",
        "cursor_wrap.tool.outcome": "success",
        "cursor_wrap.tool.label": "src/index.ts",
      },
      status: { code: 0 },
    });
    // The call the hang cut short ends with the kill's attempt, as a timeout.
    expect(byId.get("call_2")!.parentSpanId).toBe(hung!.spanId);
    expect(byId.get("call_2")!.attributes["error.type"]).toBe(ERROR_TIMEOUT);
    expect(byId.get("call_2")!.endMs).toBe(hung!.endMs);
    // A refused call is an error of its own kind.
    expect(byId.get("call_3")!.parentSpanId).toBe(resumed!.spanId);
    expect(byId.get("call_3")!.attributes["error.type"]).toBe("rejected");
    expect(byId.get("call_3")!.status.code).toBe(2);
  });

  it("a run that ends hung sets error.type timeout on the run", async () => {
    await traced(hangGivenUp);
    const spans = await receiver.waitFor((received) => received.length >= 2);
    const [run] = named(spans, "invoke_agent cursor-agent");
    // Without TRACEPARENT the run is a root.
    expect(run!.parentSpanId).toBeUndefined();
    expect(run!.attributes).toMatchObject({
      "error.type": ERROR_TIMEOUT,
      "cursor_wrap.outcome": "hang",
      "cursor_wrap.exit_code": 3,
    });
    expect(run!.status).toMatchObject({ code: 2, message: "hang" });
    const [attempt] = named(spans, "attempt");
    expect(attempt!.attributes["error.type"]).toBe(ERROR_TIMEOUT);
    expect(attempt!.events.map((event) => event.name)).toEqual(["hang", "killed", "gave_up"]);
    expect(attempt!.events.at(-1)!.attributes).toEqual({
      "cursor_wrap.summary": "hang: hang retries are off (no prompt to resume with)",
    });
  });

  it("marks an attempt that failed and was retried as failed, with the failure it was retried after", async () => {
    await traced(rateLimitedThenSuccess);
    const spans = await receiver.waitFor((received) => received.length >= 3);
    const [first, second] = named(spans, "attempt");
    expect(first!.status).toMatchObject({ code: 2, message: "rate-limit" });
    expect(first!.attributes["error.type"]).toBe("rate-limit");
    expect(first!.events.map((event) => [event.name, event.attributes])).toEqual([
      [
        "failure",
        {
          "cursor_wrap.failure.kind": "rate-limit",
          "cursor_wrap.summary": "Rate limit exceeded, try again in 1 second",
        },
      ],
    ]);
    // It ends when its turn did, not when the retry was decided.
    expect(first!.endMs).toBe(Date.UTC(2026, 10, 24, 3, 0, 0) + 160);
    expect(second!.status.code).not.toBe(2);
    // The model the agent's init named, with no -m given.
    expect(second!.attributes["gen_ai.response.model"]).toBe("Auto");
    const [run] = named(spans, "invoke_agent cursor-agent");
    expect(run!.status.code).not.toBe(2);
  });

  it("puts the failure a run gives up on, recorded after the turn's end, on its attempt", async () => {
    await traced(usageLimitGivenUp);
    const spans = await receiver.waitFor((received) => received.length >= 2);
    const [attempt] = named(spans, "attempt");
    expect(attempt!.status).toMatchObject({ code: 2, message: "usage-limit" });
    expect(attempt!.attributes["error.type"]).toBe("usage-limit");
    expect(attempt!.events.map((event) => event.name)).toEqual(["failure"]);
    expect(attempt!.endMs).toBe(Date.UTC(2026, 10, 24, 3, 0, 0) + 160);
  });

  it("hands the agent the current attempt's context in TRACEPARENT, and keeps TRACESTATE", async () => {
    const trace = await openRunTrace({
      endpoint: receiver.endpoint,
      env: { TRACEPARENT: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`, TRACESTATE: "vendor=abc" },
    });
    const [start, options, spawn] = hangThenSuccess;
    trace.record(start!.message, start!.fields);
    trace.record(options!.message, options!.fields);
    const beforeSpawn = trace.agentEnv();
    trace.record(spawn!.message, spawn!.fields);
    const atSpawn = trace.agentEnv();
    trace.end(143, "signal SIGTERM");
    await trace.shutdown();
    const spans = await receiver.waitFor((received) => received.length >= 2);
    const [run] = named(spans, "invoke_agent cursor-agent");
    const [attempt] = named(spans, "attempt");
    expect(beforeSpawn).toEqual({
      TRACEPARENT: `00-${CALLER_TRACE}-${run!.spanId}-01`,
      TRACESTATE: "vendor=abc",
    });
    expect(atSpawn.TRACEPARENT).toBe(`00-${CALLER_TRACE}-${attempt!.spanId}-01`);
    // A run that ended without its log (end()) still closes every span.
    expect(run!.attributes).toMatchObject({ "error.type": "signal", "cursor_wrap.exit_code": 143 });
    expect(attempt!.endMs).toBeGreaterThanOrEqual(attempt!.startMs);
  });

  it("ignores a malformed TRACEPARENT: the run starts a trace of its own", async () => {
    const trace = await traced(hangGivenUp, { env: { TRACEPARENT: "00-zz-not-a-context" } });
    const spans = await receiver.waitFor((received) => received.length >= 2);
    expect(named(spans, "invoke_agent cursor-agent")[0]!.parentSpanId).toBeUndefined();
    expect(trace.traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it("reports a failed export and still shuts down", async () => {
    receiver.failWith(500);
    const errors: Error[] = [];
    await traced(hangGivenUp, {
      exportTimeoutMs: 2_000,
      onExportError: (error) => errors.push(error),
    });
    expect(errors.length).toBeGreaterThan(0);
    expect(receiver.spans).toEqual([]);
  });

  it("reports an export that never gets an answer, and shuts down all the same", async () => {
    // A collector that takes the request and never answers (a black hole behind a proxy).
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const errors: Error[] = [];
    try {
      await traced(hangGivenUp, {
        endpoint: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1/traces`,
        exportTimeoutMs: 300,
        onExportError: (error) => errors.push(error),
      });
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
    expect(errors.map((error) => error.message)).toContainEqual(
      expect.stringMatching(/timed out/i),
    );
  });

  it("shuts down with nothing listening: the spans are dropped, never thrown", async () => {
    await receiver.close();
    const errors: Error[] = [];
    await traced(hangGivenUp, {
      exportTimeoutMs: 2_000,
      onExportError: (error) => errors.push(error),
    });
    expect(errors.length).toBeGreaterThan(0);
    receiver = await startOtlpReceiver();
  });
});

describe("the GenAI attribute names", () => {
  it("are those of @opentelemetry/semantic-conventions (incubating) 1.45.0", () => {
    expect(GENAI).toEqual({
      operationName: incubating.ATTR_GEN_AI_OPERATION_NAME,
      providerName: incubating.ATTR_GEN_AI_PROVIDER_NAME,
      agentName: incubating.ATTR_GEN_AI_AGENT_NAME,
      agentVersion: incubating.ATTR_GEN_AI_AGENT_VERSION,
      conversationId: incubating.ATTR_GEN_AI_CONVERSATION_ID,
      requestModel: incubating.ATTR_GEN_AI_REQUEST_MODEL,
      responseModel: incubating.ATTR_GEN_AI_RESPONSE_MODEL,
      inputTokens: incubating.ATTR_GEN_AI_USAGE_INPUT_TOKENS,
      outputTokens: incubating.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
      cacheReadTokens: incubating.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
      cacheCreationTokens: incubating.ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS,
      toolName: incubating.ATTR_GEN_AI_TOOL_NAME,
      toolCallId: incubating.ATTR_GEN_AI_TOOL_CALL_ID,
      toolType: incubating.ATTR_GEN_AI_TOOL_TYPE,
      errorType: incubating.ATTR_ERROR_TYPE,
    });
    expect(OPERATION).toEqual({
      invokeAgent: incubating.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      executeTool: incubating.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
    });
    expect(ERROR_TIMEOUT).toBe("timeout");
  });
});

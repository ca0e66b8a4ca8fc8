import { createLineFramer, parseLine, resultInfo, toMonitorSignal } from "@cursor-wrap/events";
import { realCaptures } from "@cursor-wrap/fixtures";
import { describe, expect, it } from "vitest";
import { createTurnFacts } from "./turn-facts.js";

function collect(bytes: Buffer, resuming = false) {
  const collector = createTurnFacts({ resuming });
  const framer = createLineFramer();
  const sessions: string[] = [];
  for (const event of [...framer.push(bytes), ...framer.end()]) {
    if (collector.event(event, toMonitorSignal(event))) sessions.push(collector.facts.sessionId!);
  }
  return { facts: collector.facts, sessions };
}

describe("createTurnFacts", () => {
  it.each(realCaptures().map((capture) => [capture.name, capture] as const))(
    "reads %s like the extractors do",
    (_name, capture) => {
      const framer = createLineFramer();
      const events = [...framer.push(capture.bytes), ...framer.end()];
      const signals = events.map(toMonitorSignal);
      const result = events.map(resultInfo).find(Boolean);
      const { facts, sessions } = collect(capture.bytes);
      const firstInit = signals.find((signal) => signal.type === "session");
      expect(facts.sessionId).toBe(firstInit?.type === "session" ? firstInit.sessionId : undefined);
      expect(sessions).toEqual(facts.sessionId ? [facts.sessionId] : []);
      expect(facts.toolCalls).toBe(signals.filter((signal) => signal.type === "toolStart").length);
      expect(facts.resultReceived).toBe(result !== undefined);
      expect(facts.resultIsError).toBe(result?.isError === true);
      expect(facts.usage).toEqual(result?.usage);
      // The model the first init names, as the agent wrote it.
      const init = events.find(
        (event) => event.kind === "json" && event.type === "system" && event.subtype === "init",
      );
      const named = init?.kind === "json" ? init.data.model : undefined;
      expect(facts.agentModel).toBe(typeof named === "string" && named !== "" ? named : undefined);
    },
  );

  it("takes the model the agent's init names", () => {
    const init = parseLine(
      '{"type":"system","subtype":"init","session_id":"s-1","model":"Claude 4.5 Sonnet"}\n',
    );
    const collector = createTurnFacts({ resuming: false });
    collector.event(init, toMonitorSignal(init));
    expect(collector.facts.agentModel).toBe("Claude 4.5 Sonnet");
  });

  it("takes the first failure the agent reports, on stdout or stderr", () => {
    const collector = createTurnFacts({ resuming: false });
    const bare = parseLine("T: Authentication required. Run agent login\n");
    collector.event(bare, toMonitorSignal(bare));
    collector.stderrText("usage limit reached");
    expect(collector.facts.failure).toMatchObject({ kind: "auth" });
    const error = parseLine('{"type":"error","message":"something broke"}\n');
    const fresh = createTurnFacts({ resuming: false });
    fresh.event(error, toMonitorSignal(error));
    expect(fresh.facts.failure).toEqual({
      kind: "agent-error",
      transient: false,
      detail: "something broke",
    });
    // The API's own shape: the agent's words, not "error".
    const nested = parseLine('{"type":"error","error":{"message":"boom","code":500}}\n');
    const other = createTurnFacts({ resuming: false });
    other.event(nested, toMonitorSignal(nested));
    expect(other.facts.failure).toMatchObject({ kind: "agent-error", detail: "boom" });
  });

  it("keeps the last stderr line and knows an unknown session only when resuming", () => {
    const resumed = createTurnFacts({ resuming: true });
    resumed.stderrText("Error: chat abc not found");
    resumed.stderrText("   ");
    expect(resumed.facts).toMatchObject({
      lastStderr: "Error: chat abc not found",
      failure: { kind: "unknown-session" },
    });
    const fresh = createTurnFacts({ resuming: false });
    fresh.stderrText("Error: chat abc not found");
    expect(fresh.facts.failure).toBeUndefined();
  });

  it("reads the whole usage-limit block: the model it suggests and when it resets", () => {
    const collector = createTurnFacts({ resuming: false });
    for (const line of [
      "Error: You've hit your usage limit",
      "  Get Cursor Pro for more Agent usage, unlimited Tab, and more.",
      "  fallbackModel: gpt-5-mini",
      "  spendLimitHit: false",
      "  and more. Your usage limits will reset when your monthly cycle ends on 11/17/2025.*",
      "  spendLimits: [50,100,200]",
    ]) {
      collector.stderrText(line);
    }
    expect(collector.facts.failure).toMatchObject({
      kind: "usage-limit",
      detail: "Error: You've hit your usage limit",
      fallbackModel: "gpt-5-mini",
      resetText: "11/17/2025",
    });
  });

  it("knows when the stream began, whether work was done, and a reconnect that never came back", () => {
    const collector = createTurnFacts({ resuming: false });
    const feed = (line: string): void => {
      const event = parseLine(`${line}\n`);
      collector.event(event, toMonitorSignal(event));
    };
    expect(collector.facts.streamStarted).toBe(false);
    feed('{"type":"system","subtype":"init","session_id":"s1"}');
    expect(collector.facts).toMatchObject({ streamStarted: true, progressed: false });
    feed('{"type":"connection","subtype":"reconnecting","attempt":1}');
    expect(collector.facts.reconnecting).toBe(true);
    feed('{"type":"connection","subtype":"reconnected"}');
    expect(collector.facts.reconnecting).toBe(false);
    feed('{"type":"retry","subtype":"starting","attempt":2}');
    expect(collector.facts.reconnecting).toBe(true);
    feed('{"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]}}');
    expect(collector.facts).toMatchObject({ reconnecting: false, progressed: true });
  });

  it("fails a stream that begins with an unsupported protocol version, and only one that begins so", () => {
    const feed = (collector: ReturnType<typeof createTurnFacts>, line: string): void => {
      const event = parseLine(`${line}\n`);
      collector.event(event, toMonitorSignal(event));
    };
    const unsupported = createTurnFacts({ resuming: false });
    feed(unsupported, '{"type":"protocol","data":{"version":"2.0"}}');
    expect(unsupported.facts).toMatchObject({
      protocolVersion: "2.0",
      failure: { kind: "protocol", detail: "protocol version 2.0" },
    });
    const supported = createTurnFacts({ resuming: false });
    feed(supported, '{"type":"protocol","data":{"version":"1.0"}}');
    expect(supported.facts).toMatchObject({ protocolVersion: "1.0", failure: undefined });
    const late = createTurnFacts({ resuming: false });
    feed(late, '{"type":"system","subtype":"init","session_id":"s1"}');
    feed(late, '{"type":"protocol","data":{"version":"2.0"}}');
    expect(late.facts).toMatchObject({ protocolVersion: undefined, failure: undefined });
  });
});

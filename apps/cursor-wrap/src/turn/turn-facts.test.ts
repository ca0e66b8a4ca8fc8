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
    },
  );

  it("takes the first failure the agent reports, on stdout or stderr", () => {
    const collector = createTurnFacts({ resuming: false });
    const bare = parseLine("T: Authentication required. Run agent login\n");
    collector.event(bare, toMonitorSignal(bare));
    collector.stderrText("usage limit reached");
    expect(collector.facts.failure).toMatchObject({ kind: "auth" });
    const error = parseLine('{"type":"error","message":"something broke"}\n');
    const fresh = createTurnFacts({ resuming: false });
    fresh.event(error, toMonitorSignal(error));
    expect(fresh.facts.failure).toEqual({ kind: "agent-error", detail: "something broke" });
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
});

import { createLineFramer } from "@cursor-wrap/events";
import { createFormatter, type WrapperDecision } from "@cursor-wrap/format";
import type { Reason } from "@cursor-wrap/monitor";
import { describe, expect, it } from "vitest";
import { type HintInOutput, resumeHintLine, trackResumeHint } from "./resume-hint.js";

const reason: Reason = {
  kind: "idle",
  idleMs: 60_000,
  openCallCount: 0,
  openCalls: [],
  message: "no output for 60s",
};
const hang = (sessionId?: string): WrapperDecision => ({
  kind: "hang",
  reason,
  terminal: true,
  ...(sessionId ? { sessionId } : {}),
});
const resultEvents = createLineFramer().push(
  Buffer.from('{"type":"result","subtype":"success","is_error":true,"session_id":"s-1"}\n'),
);

/** A turn: start, optionally a result, a decision, end; returns whether the hint was shown. */
function turn(where: HintInOutput, steps: { result?: boolean; decision?: WrapperDecision }) {
  const sink: string[] = [];
  const tracker = trackResumeHint(
    createFormatter("stream-json", { write: (chunk) => sink.push(String(chunk)) }),
    where,
  );
  tracker.formatter.startTurn();
  if (steps.result) for (const event of resultEvents) tracker.formatter.write(event);
  if (steps.decision) tracker.formatter.wrapper(steps.decision);
  tracker.formatter.flush();
  tracker.formatter.endTurn({ durationMs: 1, toolCalls: 0, outcome: "hang" });
  return { shown: tracker.shown(), tracker, output: sink.join("") };
}

describe("trackResumeHint", () => {
  it("counts a terminal decision with a session as shown where the format shows decisions", () => {
    expect(turn("wrapper", { decision: hang("s-1") }).shown).toBe(true);
    expect(turn("wrapper", { decision: hang() }).shown).toBe(false);
    expect(turn("wrapper", {}).shown).toBe(false);
  });

  it("passes everything on to the formatter it watches", () => {
    expect(turn("wrapper", { result: true, decision: hang("s-1") }).output).toContain(
      '"resume":"cursor-wrap --resume s-1"',
    );
  });

  it("knows json prints the result instead of the decision when there is one", () => {
    expect(turn("wrapper-unless-result", { decision: hang("s-1") }).shown).toBe(true);
    expect(turn("wrapper-unless-result", { result: true, decision: hang("s-1") }).shown).toBe(
      false,
    );
  });

  it("never counts the final answer alone as showing it", () => {
    expect(turn("none", { decision: hang("s-1") }).shown).toBe(false);
  });

  it("starts over with each turn", () => {
    const { tracker } = turn("wrapper", { decision: hang("s-1") });
    tracker.formatter.startTurn();
    expect(tracker.shown()).toBe(false);
  });
});

describe("resumeHintLine", () => {
  it("is the command line, shell-quoted", () => {
    expect(resumeHintLine("5d2c7a1e-0b6f")).toBe(
      "resume with: cursor-wrap --resume 5d2c7a1e-0b6f\n",
    );
  });
});

// R-FMT5: whatever the agent prints, the text rendering sends a terminal nothing it would act
// on except cursor-wrap's own styling (colour codes, and on a terminal its status line erase).

import { parseLine, TOOL_KINDS } from "@cursor-wrap/events";
import type { Reason } from "@cursor-wrap/monitor";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { eventSubtype, eventType } from "./__fixtures__/arbitraries.js";
import { createFormatter } from "./create-formatter.js";
import type { Output, WrapperDecision } from "./types.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);

/** Control characters and bidi controls: what a terminal acts on instead of printing. */
const ACTIVE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** cursor-wrap's own: SGR colour codes, and the status line's erase. */
const OWN = /\u001b\[[0-9;]*m|\r\u001b\[2K/g;

/** Strings an attacker would print: escape sequences, controls, bidi, and random text. */
const hostile = fc.oneof(
  fc.string({ unit: "binary" }),
  fc.constantFrom(
    "\u001b]0;pwned\u0007",
    "\u001b[2J",
    "\u001b]52;c;ZXZpbA==\u0007",
    "\u001b]8;;https://x\u001b\\link\u001b]8;;\u001b\\",
    "ok\rgone",
    "\u009b31m",
    "a\u202eb",
    "\u0008\u0008\u0008",
  ),
  fc
    .array(fc.constantFrom("\u001b", "\u0007", "[", "]", "\r", "\u009d", "\u202e", "x", ";", "\n"))
    .map((parts) => parts.join("")),
);

const event = fc
  .record({
    type: fc.oneof(eventType, hostile),
    subtype: fc.oneof(eventSubtype, hostile),
    call_id: hostile,
    session_id: hostile,
    message: fc.record({
      content: fc.array(fc.record({ type: fc.constant("text"), text: hostile })),
    }),
    result: hostile,
    tool_call: fc.dictionary(
      fc.constantFrom(...Object.keys(TOOL_KINDS), "xToolCall"),
      fc.record({
        args: fc.dictionary(
          fc.constantFrom(
            "command",
            "path",
            "pattern",
            "toolName",
            "providerIdentifier",
            "url",
            "query",
            "prompt",
          ),
          hostile,
        ),
        result: fc.record({
          success: fc.dictionary(
            fc.constantFrom("stderr", "stdout", "message", "exitCode", "content"),
            hostile,
          ),
          error: fc.record({ error: hostile, stderr: hostile }),
        }),
      }),
    ),
    error: hostile,
  })
  .map((object) => parseLine(`${JSON.stringify(object)}\n`));
const textLine = hostile.map((text) => parseLine(`${text.replace(/\n/g, " ")}\n`));

function reason(message: string): Reason {
  return { kind: "idle", idleMs: 1, openCallCount: 0, openCalls: [], message };
}

const decision: fc.Arbitrary<WrapperDecision> = fc.oneof(
  hostile.map((message) => ({
    kind: "hang" as const,
    reason: reason(message),
    sessionId: message,
    terminal: true,
  })),
  hostile.map((message) => ({
    kind: "error" as const,
    message,
    sessionId: message,
    terminal: true,
  })),
  hostile.map((prompt) => ({
    kind: "retry" as const,
    attempt: 1,
    maxAttempts: 2,
    prompt,
    reason: reason(prompt),
  })),
);

describe("text rendering of hostile agent output (property)", () => {
  for (const [tty, color] of [
    [false, false],
    [false, true],
    [true, true],
  ] as const) {
    it(`sends nothing but its own styling to the terminal (tty ${tty}, colour ${color})`, () => {
      fc.assert(
        fc.property(
          fc.array(fc.oneof(event, textLine), { maxLength: 8 }),
          decision,
          hostile,
          (events, wrapperDecision, notice) => {
            let written = "";
            const out: Output = {
              isTTY: tty,
              write(chunk) {
                written += Buffer.from(chunk).toString("utf8");
                return true;
              },
            };
            const formatter = createFormatter("text", out, { tty, color, refreshMs: 1_000_000 });
            formatter.startTurn();
            for (const item of events) formatter.write(item);
            formatter.notice(notice, { firesAt: 1 });
            formatter.wrapper(wrapperDecision);
            formatter.endTurn({ durationMs: 1, toolCalls: 1, outcome: "hang" });
            formatter.close();
            expect(written.replace(OWN, "")).not.toMatch(ACTIVE);
          },
        ),
        { numRuns: RUNS },
      );
    });
  }
});

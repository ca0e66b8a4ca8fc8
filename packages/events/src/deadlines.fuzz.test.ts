// Agent output is untrusted: no content of an event may make the monitor's next deadline
// anything but a finite time (a NaN deadline disables detection and spins a 1 ms timer).

import { createMonitor } from "@cursor-wrap/monitor";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toMonitorSignal } from "./extract.js";
import { parseLine } from "./parse-line.js";
import { TOOL_KINDS } from "./tool-kinds.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

const hostileKey = fc.oneof(
  fc.constantFrom(
    ...Object.keys(TOOL_KINDS),
    "constructorToolCall",
    "__proto__ToolCall",
    "toStringToolCall",
    "valueOfToolCall",
    "hasOwnPropertyToolCall",
    "function",
  ),
  fc.string().map((name) => `${name}ToolCall`),
);
const hostileValue = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom("NaN", "Infinity", "-1", "1e400", "-0", "0x10", "", " "),
  fc.double(),
);

const toolEvent = fc
  .record({
    subtype: fc.constantFrom("started", "completed", "x"),
    call_id: fc.oneof(fc.string(), fc.constantFrom("constructor", "__proto__")),
    key: hostileKey,
    args: fc.dictionary(
      fc.constantFrom("timeout", "blockUntilMs", "timeoutMs", "isBackground", "command"),
      hostileValue,
    ),
  })
  .map(({ subtype, call_id, key, args }) =>
    parseLine(
      `${JSON.stringify({ type: "tool_call", subtype, call_id, tool_call: { [key]: { args } } })}\n`,
    ),
  );

describe("the monitor fed with hostile events (property)", () => {
  it("always has a finite next deadline until the agent exits", () => {
    fc.assert(
      fc.property(fc.array(toolEvent, { maxLength: 10 }), (events) => {
        const monitor = createMonitor({ now: () => 0 });
        let at = 0;
        for (const event of events) {
          at += 10;
          monitor.observe(toMonitorSignal(event), at);
          const deadline = monitor.nextDeadline();
          expect(deadline !== undefined && Number.isFinite(deadline)).toBe(true);
          expect(deadline!).toBeGreaterThan(at);
        }
      }),
      { numRuns: RUNS },
    );
  });
});

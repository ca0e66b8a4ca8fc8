import {
  assistantMessage,
  createLineFramer,
  resultInfo,
  TOOL_KINDS,
  toMonitorSignal,
  toolCallInfo,
  toolResult,
} from "@cursor-wrap/events";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { eventSubtype, eventType } from "./__fixtures__/arbitraries.js";
import { createFormatter } from "./create-formatter.js";
import type { Output } from "./types.js";

// Bounded here; `pnpm fuzz` runs it with FUZZ_RUNS=20000.
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);

const sink: Output = { write: () => true };

/** Bytes that look enough like cursor-agent output to reach deep into the extractors. */
const eventish = fc
  .record({
    type: eventType,
    subtype: eventSubtype,
    call_id: fc.option(fc.string(), { nil: undefined }),
    timestamp_ms: fc.option(fc.oneof(fc.integer(), fc.string()), { nil: undefined }),
    model_call_id: fc.option(fc.string(), { nil: undefined }),
    message: fc.jsonValue(),
    tool_call: fc.dictionary(
      fc.constantFrom(...Object.keys(TOOL_KINDS), "xToolCall", "toolCallId"),
      fc.jsonValue(),
    ),
  })
  .map((event) => Buffer.from(`${JSON.stringify(event)}\n`));
const noise = fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes));

describe("framer → parser → extractors → formatters (property)", () => {
  it("never throws on random bytes split anywhere", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(eventish, noise), { maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.boolean(),
        (pieces, cuts, tty) => {
          const bytes = Buffer.concat(pieces);
          const framer = createLineFramer({ parseCap: 256 });
          const passedThrough: Buffer[] = [];
          const collect: Output = {
            write: (chunk) => passedThrough.push(Buffer.from(chunk)),
          };
          const formatters = (["stream-json", "json", "text"] as const).map((format) =>
            createFormatter(format, format === "stream-json" ? collect : sink, { tty, color: tty }),
          );
          const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort(
            (a, b) => a - b,
          );
          let previous = 0;
          const chunks = [...points, bytes.length].map((point) => {
            const chunk = bytes.subarray(previous, point);
            previous = point;
            return chunk;
          });
          expect(() => {
            for (const events of [...chunks.map((chunk) => framer.push(chunk)), framer.end()]) {
              for (const event of events) {
                toMonitorSignal(event);
                toolCallInfo(event);
                toolResult(event);
                assistantMessage(event);
                resultInfo(event);
                for (const formatter of formatters) formatter.write(event);
              }
              for (const formatter of formatters) formatter.flush();
            }
            for (const formatter of formatters) {
              formatter.endTurn({ durationMs: 1, toolCalls: 0, outcome: "completed" });
              formatter.close();
            }
          }).not.toThrow();
          // However the bytes were chunked and batched, stream-json gave them back unchanged.
          expect(Buffer.concat(passedThrough).equals(bytes)).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
  });
});

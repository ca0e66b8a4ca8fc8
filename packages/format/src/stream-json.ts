import { assistantMessage, createAssistantText } from "@cursor-wrap/events";
import type { Formatter, Output } from "./types.js";
import { wrapperLine } from "./wrapper-line.js";

const LARGE_LINE = 64 * 1024;

/**
 * stream-json (R-FMT1): every byte of the agent's stdout, in order, unchanged; the only
 * additions are the synthetic wrapper lines.
 */
export function createStreamJsonFormatter(out: Output): Formatter {
  const assistant = createAssistantText();
  let atLineStart = true;
  // Lines of the current chunk, written together: one write instead of one per line.
  let held: Buffer[] = [];
  let flushQueued = false;

  const flush = (): void => {
    flushQueued = false;
    if (held.length === 0) return;
    const parts = held;
    held = [];
    let batch: Buffer[] = [];
    let batchBytes = 0;
    const writeBatch = (): void => {
      if (batch.length === 1) out.write(batch[0]!);
      else if (batch.length > 1) out.write(Buffer.concat(batch, batchBytes));
      batch = [];
      batchBytes = 0;
    };
    for (const part of parts) {
      // Small lines are joined (a copy is cheaper than a write each); big ones go as they are.
      if (part.length >= LARGE_LINE) {
        writeBatch();
        out.write(part);
      } else {
        batch.push(part);
        batchBytes += part.length;
      }
    }
    writeBatch();
  };

  return {
    write(event) {
      held.push(event.raw);
      if (event.raw.length > 0) atLineStart = event.raw[event.raw.length - 1] === 0x0a;
      if (!flushQueued) {
        flushQueued = true;
        queueMicrotask(flush);
      }
      if (event.kind === "json" && event.type === "assistant") {
        const message = assistantMessage(event);
        if (message) assistant.add(message);
      } else if (event.kind === "json" && event.type === "tool_call") assistant.breakSegment();
    },
    flush,
    wrapper(decision) {
      flush();
      // A wrapper line always starts on a line of its own, even after a last line without `\n`.
      out.write(`${atLineStart ? "" : "\n"}${wrapperLine(decision, assistant.text())}`);
      atLineStart = true;
    },
    startTurn() {},
    notice() {},
    interrupt() {},
    endTurn() {
      flush();
      assistant.reset();
    },
    partialResult: () => assistant.text(),
    close() {
      flush();
    },
  };
}

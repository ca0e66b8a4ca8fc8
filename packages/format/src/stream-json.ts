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
  // The lines last written whose bytes follow each other in one buffer (a chunk's lines, nearly
  // always): bytes `[runFrom, runTo)` of `runFirst.buffer`, not in `held` yet. They go to
  // `held` as one view of those bytes: no part per line, and no copy to join them.
  let runFirst: Buffer | undefined;
  // `runFirst.buffer`, read once per run: a Buffer's `buffer` is a call into V8's runtime.
  let runBuffer: ArrayBufferLike | undefined;
  let runFrom = 0;
  let runTo = 0;
  let flushQueued = false;

  const takeRun = (): void => {
    if (runFirst === undefined) return;
    held.push(
      runTo - runFrom === runFirst.length
        ? runFirst
        : Buffer.from(runBuffer!, runFrom, runTo - runFrom),
    );
    runFirst = undefined;
  };

  const flush = (): void => {
    flushQueued = false;
    takeRun();
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
      const { raw } = event;
      if (runFirst !== undefined && raw.byteOffset === runTo && raw.buffer === runBuffer) {
        runTo += raw.length;
      } else {
        takeRun();
        runFirst = raw;
        runBuffer = raw.buffer;
        runFrom = raw.byteOffset;
        runTo = runFrom + raw.length;
      }
      if (raw.length > 0) atLineStart = raw[raw.length - 1] === 0x0a;
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

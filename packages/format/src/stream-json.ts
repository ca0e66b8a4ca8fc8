import { assistantMessage } from "@cursor-wrap/events";
import { createAssistantText } from "./assistant-text.js";
import type { Formatter, Output } from "./types.js";
import { wrapperLine } from "./wrapper-line.js";

/**
 * stream-json (R-FMT1): every byte of the agent's stdout, in order, unchanged; the only
 * additions are the synthetic wrapper lines.
 */
export function createStreamJsonFormatter(out: Output): Formatter {
  const assistant = createAssistantText();
  let atLineStart = true;
  return {
    write(event) {
      out.write(event.raw);
      if (event.raw.length > 0) atLineStart = event.raw[event.raw.length - 1] === 0x0a;
      if (event.kind === "json" && event.type === "assistant") {
        const message = assistantMessage(event);
        if (message) assistant.add(message);
      } else if (event.kind === "json" && event.type === "tool_call") assistant.breakSegment();
    },
    wrapper(decision) {
      // A wrapper line always starts on a line of its own, even after a last line without `\n`.
      out.write(`${atLineStart ? "" : "\n"}${wrapperLine(decision, assistant.text())}`);
      atLineStart = true;
    },
    notice() {},
    endTurn() {
      assistant.reset();
    },
    partialResult: () => assistant.text(),
    close() {},
  };
}

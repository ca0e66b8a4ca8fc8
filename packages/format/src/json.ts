import { assistantMessage, createAssistantText, resultInfo } from "@cursor-wrap/events";
import type { Formatter, Output } from "./types.js";
import { isTerminal, wrapperLine } from "./wrapper-line.js";

/**
 * json (R-FMT2): like cursor-agent's own json format, one object per turn: the `result` line
 * (its bytes as the agent wrote them in stream-json), or, when the turn ended without one,
 * the terminal wrapper line. A result line above the parse cap is written through as its
 * pieces arrive, so memory stays bounded however long the answer.
 */
export function createJsonFormatter(out: Output): Formatter {
  const assistant = createAssistantText();
  let result: Buffer | undefined;
  let terminal: string | undefined;
  // Writing an oversize result line through, piece by piece; then the turn has its output.
  let streaming = false;
  let streamed = false;
  return {
    write(event) {
      if (event.kind === "oversize") {
        if (event.first && resultInfo(event)) streaming = true;
        if (!streaming) return;
        out.write(event.raw);
        if (event.final) {
          streaming = false;
          streamed = true;
          if (event.eol === "") out.write("\n");
        }
        return;
      }
      if (event.kind !== "json") return;
      if (event.type === "result") result = Buffer.concat([event.line, Buffer.from("\n")]);
      else if (event.type === "assistant") {
        const message = assistantMessage(event);
        if (message) assistant.add(message);
      }
    },
    wrapper(decision) {
      if (isTerminal(decision)) terminal = wrapperLine(decision, assistant.text());
    },
    flush() {},
    startTurn() {},
    notice() {},
    interrupt() {},
    endTurn() {
      // A result cut off mid-line (the agent was killed) ends its line before the wrapper's.
      if (streaming) out.write("\n");
      const output = result ?? terminal;
      if (output !== undefined && !streamed) out.write(output);
      result = undefined;
      terminal = undefined;
      streaming = false;
      streamed = false;
      assistant.reset();
    },
    partialResult: () => assistant.text(),
    close() {},
  };
}

import { assistantMessage } from "@cursor-wrap/events";
import { createAssistantText } from "./assistant-text.js";
import type { Formatter, Output } from "./types.js";
import { isTerminal, wrapperLine } from "./wrapper-line.js";

/**
 * json (R-FMT2): like cursor-agent's own json format, one object per turn: the `result` line
 * (its bytes as the agent wrote them in stream-json), or, when the turn ended without one,
 * the terminal wrapper line.
 */
export function createJsonFormatter(out: Output): Formatter {
  const assistant = createAssistantText();
  let result: Buffer | undefined;
  let terminal: string | undefined;
  return {
    write(event) {
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
      const output = result ?? terminal;
      if (output !== undefined) out.write(output);
      result = undefined;
      terminal = undefined;
      assistant.reset();
    },
    partialResult: () => assistant.text(),
    close() {},
  };
}

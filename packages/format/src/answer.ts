import {
  assistantMessage,
  createAssistantText,
  resultInfo,
  terminalSafe,
} from "@cursor-wrap/events";
import type { Formatter, Output } from "./types.js";

/**
 * The final answer only, as cursor-agent's own `--output-format text` prints it in print mode:
 * the agent's last message once the turn has its result, nothing else (its `result` field, all
 * messages run together, only when there is no message). For `answer=$(cursor-wrap -p
 * --output-format text …)`: shell capture gets the answer, and the rendering of tools and
 * progress can go elsewhere (see `combineFormatters`).
 */
export function createAnswerFormatter(out: Output): Formatter {
  const assistant = createAssistantText();
  // The message being streamed (deltas) and the last whole one.
  let segment = "";
  let last = "";
  return {
    write(event) {
      if (event.kind !== "json") return;
      if (event.type === "tool_call") {
        segment = "";
        return;
      }
      if (event.type === "assistant") {
        const message = assistantMessage(event);
        if (!message) return;
        assistant.add(message);
        if (message.form === "delta") {
          segment += message.text;
          last = segment;
        } else if (message.form !== "echo" && message.text) last = message.text;
        return;
      }
      const result = resultInfo(event);
      if (!result) return;
      // Text for people, even in a file: the agent's control sequences are shown, not kept.
      const text = terminalSafe(last || result.text);
      if (text) out.write(text.endsWith("\n") ? text : `${text}\n`);
    },
    flush() {},
    startTurn() {},
    wrapper() {},
    notice() {},
    interrupt() {},
    endTurn() {
      assistant.reset();
      segment = "";
      last = "";
    },
    partialResult: () => assistant.text(),
    close() {},
  };
}

/** One formatter that renders to several: the first one's `partialResult` is the answer. */
export function combineFormatters(first: Formatter, ...rest: Formatter[]): Formatter {
  const all = [first, ...rest];
  const each = (call: (formatter: Formatter) => void): void => {
    for (const formatter of all) call(formatter);
  };
  return {
    write: (event) => each((formatter) => formatter.write(event)),
    flush: () => each((formatter) => formatter.flush()),
    startTurn: () => each((formatter) => formatter.startTurn()),
    wrapper: (decision) => each((formatter) => formatter.wrapper(decision)),
    notice: (message, timing) => each((formatter) => formatter.notice(message, timing)),
    interrupt: () => each((formatter) => formatter.interrupt()),
    endTurn: (summary) => each((formatter) => formatter.endTurn(summary)),
    partialResult: () => first.partialResult(),
    close: (failure) => each((formatter) => formatter.close(failure)),
  };
}

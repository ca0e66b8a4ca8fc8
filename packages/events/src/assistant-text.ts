import type { AssistantMessage } from "./extract.js";

/** Follows the assistant's text through its several forms so none is shown twice. */
export interface AssistantText {
  /**
   * Take one assistant event; returns the text to show now (possibly empty) and whether it
   * completes a message (so a newline follows).
   */
  add(message: AssistantMessage): { show: string; complete: boolean };
  /** A tool call started: the next deltas begin a new message. */
  breakSegment(): void;
  /** Everything the assistant said this turn. */
  text(): string;
  /** Start a new turn. */
  reset(): void;
}

/**
 * Without `--stream-partial-output` every message arrives once (mid-turn messages carry
 * `model_call_id` and `timestamp_ms`, the last one neither). With it, the text also arrives as
 * deltas (`timestamp_ms` only), then again as a copy with `model_call_id`, and the whole last
 * message once more at the end. Once deltas have been seen, copies are dropped and the final
 * message is only used to add whatever the deltas missed.
 */
export function createAssistantText(): AssistantText {
  let turn = "";
  let segment = "";
  let sawDeltas = false;
  return {
    add(message) {
      switch (message.form) {
        case "delta":
          sawDeltas = true;
          segment += message.text;
          turn += message.text;
          return { show: message.text, complete: false };
        case "message":
        case "echo":
          if (sawDeltas) return { show: "", complete: false };
          turn += message.text;
          return { show: message.text, complete: true };
        case "final": {
          if (!sawDeltas) {
            turn += message.text;
            return { show: message.text, complete: true };
          }
          const missing = message.text.startsWith(segment)
            ? message.text.slice(segment.length)
            : "";
          turn += missing;
          segment = "";
          return { show: missing, complete: true };
        }
      }
    },
    breakSegment() {
      segment = "";
    },
    text: () => turn,
    reset() {
      turn = "";
      segment = "";
      sawDeltas = false;
    },
  };
}

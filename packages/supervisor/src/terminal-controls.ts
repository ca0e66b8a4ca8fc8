// Terminal control sequences a pseudo-terminal adds around program output: CSI (`ESC [ … final`),
// OSC (`ESC ] … BEL` or `ESC ] … ESC \`), other two-byte escapes, and stray BEL/backspace.
const CONTROL_SEQUENCE =
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\^_]|[\u0007\u0008]/g;
// A sequence cut off at the end of a chunk: kept until the next chunk completes it.
const INCOMPLETE_TAIL = /\u001b(?:\[[0-?]*[ -/]*|\][^\u0007\u001b]*\u001b?)?$/;

/** Removes terminal control sequences from a stream of text chunks. */
export interface ControlStripper {
  /** Clean a chunk; an escape sequence cut at its end is held back for the next chunk. */
  push(text: string): string;
  /** Whatever was held back, at the end of the stream. */
  end(): string;
}

/**
 * Strip terminal control sequences from pty output so the event stream can be parsed
 * (R-SUP5). Line endings are left alone: the line framer strips the `\r` of `\r\n`.
 */
export function createControlStripper(): ControlStripper {
  let held = "";
  return {
    push(text) {
      const joined = held + text;
      held = "";
      if (!joined.includes("\u001b") && !joined.includes("\u0007") && !joined.includes("\u0008")) {
        return joined;
      }
      let cleaned = joined.replace(CONTROL_SEQUENCE, "");
      const tail = INCOMPLETE_TAIL.exec(cleaned);
      if (tail) {
        held = tail[0];
        cleaned = cleaned.slice(0, tail.index);
      }
      return cleaned;
    },
    end() {
      const rest = held;
      held = "";
      return rest;
    },
  };
}

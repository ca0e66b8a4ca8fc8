// Text from the agent, its tools or MCP servers is untrusted: before it reaches a terminal,
// every control character and sequence in it is made visible instead of acted on (R-FMT5).

// C0 controls but tab and newline, DEL, C1 controls (U+0080–U+009F, which some terminals read
// as CSI, OSC, …), and the bidi overrides, embeddings, isolates and marks that reorder text.
// ESC is among the C0 controls: escaping it defuses every ESC-introduced sequence (CSI, OSC
// title and clipboard writes, OSC 8 links, …), since what follows it is then plain text.
const UNSAFE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const ANY_UNSAFE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const NAMED: Readonly<Record<string, string>> = {
  "\r": "\\r",
  "\b": "\\b",
  "\u001b": "\\x1b",
  "\u0007": "\\x07",
};

function visible(character: string): string {
  const named = NAMED[character];
  if (named !== undefined) return named;
  const code = character.charCodeAt(0);
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * Make untrusted text safe to print on a terminal: control characters (ESC and so every escape
 * sequence, BEL, backspace, a carriage return that would overwrite the line, C1 controls) and
 * bidi controls are shown escaped (`\x1b`, `\r`, `\u202e`) instead of acted on. Newlines and
 * tabs stay; a `\r` right before a `\n` (a CRLF line ending) is dropped. Text with nothing to
 * escape (nearly all) comes back as it was, after one search.
 */
export function terminalSafe(text: string): string {
  if (!ANY_UNSAFE.test(text)) return text;
  return text.replace(/\r\n/g, "\n").replace(UNSAFE, visible);
}

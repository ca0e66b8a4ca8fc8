// Text from the agent, its tools or MCP servers is untrusted: before it reaches a terminal,
// every control character and sequence in it is made visible instead of acted on (R-FMT5).

// C0 controls but tab and newline, DEL, C1 controls (U+0080–U+009F, which some terminals read
// as CSI, OSC, …), the bidi overrides, embeddings, isolates and marks that reorder text, and
// characters that show nothing at all, so text could hide in them: the zero-width space, the
// word joiner and invisible operators, the zero-width no-break space (BOM), the Mongolian vowel
// separator, interlinear annotation marks and the tag characters (U+E0000–U+E007F, which can
// spell out ASCII unseen). The zero-width (non-)joiners stay: emoji and scripts need them.
// ESC is among the C0 controls: escaping it defuses every ESC-introduced sequence (CSI, OSC
// title and clipboard writes, OSC 8 links, …), since what follows it is then plain text.
const UNSAFE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb\u{e0000}-\u{e007f}]/gu;
const ANY_UNSAFE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb\u{e0000}-\u{e007f}]/u;

const NAMED: Readonly<Record<string, string>> = {
  "\r": "\\r",
  "\b": "\\b",
  "\u001b": "\\x1b",
  "\u0007": "\\x07",
};

function visible(character: string): string {
  const named = NAMED[character];
  if (named !== undefined) return named;
  const code = character.codePointAt(0)!;
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, "0")}`;
  return code < 0x10000 ? `\\u${code.toString(16).padStart(4, "0")}` : `\\u{${code.toString(16)}}`;
}

/**
 * Make untrusted text safe to print on a terminal: control characters (ESC and so every escape
 * sequence, BEL, backspace, a carriage return that would overwrite the line, C1 controls), bidi
 * controls and invisible characters are shown escaped (`\x1b`, `\r`, `\u202e`, `\u200b`,
 * `\u{e0041}`) instead of acted on or hidden. Newlines and
 * tabs stay; a `\r` right before a `\n` (a CRLF line ending) is dropped. Text with nothing to
 * escape (nearly all) comes back as it was, after one search.
 */
export function terminalSafe(text: string): string {
  if (!ANY_UNSAFE.test(text)) return text;
  return text.replace(/\r\n/g, "\n").replace(UNSAFE, visible);
}

/**
 * Untrusted text with every character {@link terminalSafe} would escape removed instead (for
 * output where an escape would read as noise, such as Markdown GitHub renders). Newlines and
 * tabs stay.
 */
export function withoutTerminalUnsafe(text: string): string {
  return ANY_UNSAFE.test(text) ? text.replace(UNSAFE, "") : text;
}

/**
 * JSON text safe to print on a terminal, with the same value: every character
 * {@link terminalSafe} would escape that `JSON.stringify` leaves as it is (DEL, C1 controls,
 * bidi controls, invisible characters; it escapes C0 itself) is written as a `\u` escape.
 * Such characters can only be inside strings, where an escape means the same character.
 */
export function terminalSafeJson(json: string): string {
  if (!ANY_UNSAFE.test(json)) return json;
  return json.replace(UNSAFE, (character) => {
    let escaped = "";
    for (let index = 0; index < character.length; index += 1) {
      escaped += `\\u${character.charCodeAt(index).toString(16).padStart(4, "0")}`;
    }
    return escaped;
  });
}

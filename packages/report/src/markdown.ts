// Text from the agent inside Markdown that GitHub renders (a job summary): it must stay text.
// No HTML, no link, image, emphasis or table cell of its own, no fence it can close.

// Every ASCII punctuation character may be backslash-escaped in CommonMark (and GFM): escaping
// all of them leaves nothing for Markdown to act on. `<`, `>` and `&` become entities, which
// GitHub's HTML sanitiser also leaves as text.
const PUNCTUATION = /[\\`*_{}[\]()#+\-.!|~"'$%,/:;=?@^]/g;
const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };
// C0 and C1 controls, the bidirectional overrides that make text read otherwise than it is,
// and characters that show nothing, so text could hide in them (the zero-width space, word
// joiner, BOM, tag characters; as @cursor-wrap/events' terminalSafe).
const INVISIBLE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u180e\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb\u{e0000}-\u{e007f}]/gu;

/** Text as literal Markdown on one line (a table cell, a list item): nothing in it renders. */
export function markdownText(text: string): string {
  return text
    .replace(INVISIBLE, "")
    .replace(/[\r\n\t]+/g, " ")
    .replace(PUNCTUATION, (character) => `\\${character}`)
    .replace(/[&<>]/g, (character) => ENTITIES[character]!);
}

/**
 * A fenced code block holding `lines` as they are: the fence is longer than any run of
 * backticks inside, so no line can close it (CommonMark: a closing fence is at least as long).
 */
export function codeBlock(lines: readonly string[], language = "text"): string {
  const body = lines.map((line) => line.replace(INVISIBLE, "")).join("\n");
  const longest = Math.max(0, ...[...body.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${body}\n${fence}`;
}

/** A Markdown table: a header row and the rows, each cell already Markdown. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const row = (cells: readonly string[]): string => `| ${cells.join(" | ")} |`;
  return [row(header), row(header.map(() => "---")), ...rows.map(row)].join("\n");
}

// Text from the agent inside Markdown that GitHub renders (a job summary): it must stay text.
// No HTML, no link, image, emphasis or table cell of its own, no fence it can close.

import { withoutTerminalUnsafe } from "@cursor-wrap/events";

// Every ASCII punctuation character may be backslash-escaped in CommonMark (and GFM): escaping
// all of them leaves nothing for Markdown to act on. `<`, `>` and `&` become entities, which
// GitHub's HTML sanitiser also leaves as text.
const PUNCTUATION = /[\\`*_{}[\]()#+\-.!|~"'$%,/:;=?@^]/g;
const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

/** Text as literal Markdown on one line (a table cell, a list item): nothing in it renders. */
export function markdownText(text: string): string {
  // Control characters, bidi overrides and invisible characters go (terminalSafe's set).
  return withoutTerminalUnsafe(text)
    .replace(/[\r\n\t]+/g, " ")
    .replace(PUNCTUATION, (character) => `\\${character}`)
    .replace(/[&<>]/g, (character) => ENTITIES[character]!);
}

/**
 * A fenced code block holding `lines` as they are: the fence is longer than any run of
 * backticks inside, so no line can close it (CommonMark: a closing fence is at least as long).
 */
export function codeBlock(lines: readonly string[], language = "text"): string {
  const body = lines.map(withoutTerminalUnsafe).join("\n");
  const longest = Math.max(0, ...[...body.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${body}\n${fence}`;
}

/** A Markdown table: a header row and the rows, each cell already Markdown. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const row = (cells: readonly string[]): string => `| ${cells.join(" | ")} |`;
  return [row(header), row(header.map(() => "---")), ...rows.map(row)].join("\n");
}

// GitHub Actions workflow commands (`::error title=…::message`), escaped exactly as GitHub's own
// toolkit escapes them (@actions/core, `command.ts`), so that text from the agent can neither
// end a command early nor start one of its own (`::add-mask::`, `::set-output`, a newline
// followed by `::stop-commands::`).

import { terminalSafe } from "@cursor-wrap/events";

/** A command's message: `%`, CR and LF escaped (`%25`, `%0D`, `%0A`). */
export function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** A command's property value: as {@link escapeData}, and `:` and `,` too (`%3A`, `%2C`). */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/**
 * One workflow command line (without the newline): `::name key=value,…::message`. Whitespace
 * at the end of the message is dropped: the runner trims each line before it reads a command,
 * so the line says exactly what the runner will read.
 */
export function workflowCommand(
  name: string,
  properties: Readonly<Record<string, string | undefined>>,
  message: string,
): string {
  const given = Object.entries(properties).filter(
    (entry): entry is [string, string] => entry[1] !== undefined,
  );
  // The runner's log shows the line: the agent's control characters (ESC, BEL, bidi) are shown
  // escaped, never acted on.
  const list = given
    .map(([key, value]) => `${key}=${escapeProperty(terminalSafe(value))}`)
    .join(",");
  return `::${name}${list ? ` ${list}` : ""}::${escapeData(terminalSafe(message).trimEnd())}`;
}

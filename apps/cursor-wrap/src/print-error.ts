// The one function, not the package: every command's start-up imports this file.
import { terminalSafe } from "@cursor-wrap/events/terminal-safe";

/**
 * Print one line on stderr, prefixed with the program name. Messages quote the agent (its
 * stderr, a session id), so control sequences in them are shown, not acted on.
 */
export function printError(stderr: { write(text: string): unknown }, message: string): void {
  stderr.write(`cursor-wrap: ${terminalSafe(message)}\n`);
}

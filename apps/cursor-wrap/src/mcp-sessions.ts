// What `mcp run` and `--mcp-watchdog` share: where MCP sessions are recorded, the recovery every
// start runs first (configs a SIGKILLed session left wrapped), and the lines that tell people
// what a session did to their files.

import { readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { terminalSafe } from "@cursor-wrap/events";
// Types only: every cursor-wrap start looks for dead sessions, and loads the MCP package only
// when there is a record to look at.
import type {
  ClientName,
  EntryRef,
  McpSession,
  SessionRecord,
  SessionRelease,
} from "@cursor-wrap/mcp";

/** Where MCP sessions are recorded: one file per running session. */
export function mcpSessionsDir(): string {
  return join(homedir(), ".cursor-wrap", "mcp-sessions");
}

/** The clients' names for people. */
export const CLIENT_LABELS: Readonly<Record<ClientName, string>> = {
  cursor: "Cursor",
  "claude-code": "Claude Code",
  "claude-desktop": "Claude Desktop",
  vscode: "VS Code",
  windsurf: "Windsurf",
  zed: "Zed",
};

/** A path as printed: `~/…` under the home directory, escaped. */
export function shownFile(path: string): string {
  return terminalSafe(path.startsWith(homedir()) ? `~${path.slice(homedir().length)}` : path);
}

/**
 * A server name as printed: plain names as they are; any other (a flag-like `-h`, spaces,
 * escape sequences, bidi controls) quoted and escaped, so it reads as data and cannot act on
 * the terminal.
 */
export function shownName(name: string): string {
  return /^[A-Za-z0-9_.@+][A-Za-z0-9_.@+/:-]*$/.test(name)
    ? name
    : terminalSafe(JSON.stringify(name));
}

/** Entries as printed: `github, postgres (project /home/me/app)`. */
export function shownEntries(entries: readonly EntryRef[]): string {
  return entries
    .map(
      (entry) =>
        `${shownName(entry.name)}${entry.scope === undefined ? "" : ` (${terminalSafe(entry.scope)})`}`,
    )
    .join(", ");
}

/** One line per config a session gave back (or could not). */
export function releaseLines(releases: readonly SessionRelease[]): string[] {
  return releases.map((release) => {
    if (release.error !== undefined) {
      return `cannot give ${shownFile(release.path)} back yet: ${terminalSafe(release.error)} (the next cursor-wrap start tries again)`;
    }
    const kept =
      release.kept.length === 0
        ? ""
        : `; ${shownEntries(release.kept)} stay wrapped for another session still running`;
    if (release.exact) return `gave ${shownFile(release.path)} back byte for byte${kept}`;
    if (release.restored.length === 0)
      return `${shownFile(release.path)}: nothing to give back${kept}`;
    return `gave ${shownFile(release.path)} back: unwrapped ${shownEntries(release.restored)}, kept the changes made meanwhile${kept}`;
  });
}

/** The lines that say what the recovery of dead sessions did. */
export function recoveryLines(
  recovered: ReadonlyArray<{ record: SessionRecord; releases: SessionRelease[] }>,
): string[] {
  return recovered.flatMap(({ record, releases }) => [
    `an MCP session (pid ${record.pid}, ${terminalSafe(JSON.stringify(record.command))}, since ${record.since}) ended without giving its configs back:`,
    ...releaseLines(releases).map((line) => `  ${line}`),
  ]);
}

/** Whether any session is recorded (a look at one directory, nothing loaded). */
function anySessionRecorded(): boolean {
  try {
    return readdirSync(mcpSessionsDir()).some((name) => name.endsWith(".json"));
  } catch {
    return false;
  }
}

/**
 * Give back what sessions that died left wrapped (the start of every cursor-wrap command but
 * `mcp proxy`); returns the lines that say what was done.
 */
export async function recoverDeadSessions(): Promise<string[]> {
  if (!anySessionRecorded()) return [];
  try {
    const { recoverMcpSessions } = await import("@cursor-wrap/mcp");
    return recoveryLines(recoverMcpSessions(mcpSessionsDir()));
  } catch {
    // the registry cannot be read: nothing recorded there to give back
    return [];
  }
}

/** What a session wrapped, in one line for people. */
export function sessionStartLine(session: McpSession, until: string): string {
  const wrapped = session.configs.flatMap((config) => [...config.wrapped, ...config.shared]);
  const files = session.configs
    .filter((config) => config.wrapped.length + config.shared.length > 0)
    .map((config) => shownFile(config.path));
  // Entries another live session wrapped run through its proxies, with its settings: this
  // session's flags (--request-timeout, …) do not reach them, which is said.
  const shared = session.configs.reduce((count, config) => count + config.shared.length, 0);
  const sharedNote =
    shared === 0
      ? ""
      : ` (${shared === wrapped.length ? "all" : shared} already wrapped by another MCP session, whose proxy settings apply to ${shared === 1 ? "it" : "them"})`;
  return wrapped.length === 0
    ? "MCP watchdog: no stdio MCP server to wrap"
    : `MCP watchdog on: ${wrapped.length} server${wrapped.length === 1 ? "" : "s"} (${shownEntries(wrapped)}) in ${files.join(", ")}, until ${until}${sharedNote}`;
}

import { basename } from "node:path";

/**
 * Markers in a log file's name: `flagged` (hang, linger, budget, error), `incomplete` (writes
 * failed), `rotated` (the earlier part of a log that grew past its size limit).
 */
export type LogTag = "flagged" | "incomplete" | "rotated";

/**
 * What a log records: a cursor-wrap session, one MCP proxy (`cursor-wrap mcp proxy`), or one
 * ACP proxy between an editor and the agent (`cursor-wrap acp`).
 */
export type LogKind = "session" | "mcp" | "acp";

/** What a log file's name says. */
export interface LogFileName {
  /** Default `session`. */
  kind?: LogKind;
  /** Start of the wrapper invocation, epoch ms. */
  startedAt: number;
  /** Session id, or `unknown` until the agent announced one; for an MCP log, the server's id. */
  sessionId: string;
  tags: LogTag[];
}

const PATTERN =
  /^cursor-wrap-(?:(mcp|acp)-)?(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z-(.+?)((?:\.flagged|\.incomplete|\.rotated)*)\.jsonl$/;

/**
 * `cursor-wrap-<start>-<session>[.flagged][.incomplete][.rotated].jsonl` (an MCP proxy's log:
 * `cursor-wrap-mcp-<start>-<server>…`, an ACP proxy's: `cursor-wrap-acp-<start>-<session>…`),
 * start as `2026-11-22T12-05-01-123Z`.
 */
export function logFileName(name: LogFileName): string {
  const start = startStamp(name.startedAt);
  const tags = [...new Set(name.tags)]
    .sort()
    .map((tag) => `.${tag}`)
    .join("");
  const kind = name.kind === "mcp" || name.kind === "acp" ? `${name.kind}-` : "";
  return `cursor-wrap-${kind}${start}-${name.sessionId}${tags}.jsonl`;
}

/** Parse a log file name (or path); undefined for files that are not cursor-wrap logs. */
export function parseLogFileName(path: string): LogFileName | undefined {
  const match = PATTERN.exec(basename(path));
  if (!match) return undefined;
  const [, kind, year, month, day, hour, minute, second, millisecond, sessionId, tags] = match;
  return {
    kind: kind === "mcp" || kind === "acp" ? kind : "session",
    startedAt: Date.UTC(
      Number(year),
      Number(month) - 1,
      Number(day),
      Number(hour),
      Number(minute),
      Number(second),
      Number(millisecond),
    ),
    sessionId: sessionId!,
    tags: (tags ?? "").split(".").filter(Boolean) as LogTag[],
  };
}

/**
 * A log's start as its name writes it (`2026-11-22T12-05-01-123Z`): fixed width, so names sort
 * as their starts do.
 */
export function startStamp(startedAt: number): string {
  return new Date(startedAt).toISOString().replace(/:/g, "-").replace(".", "-");
}

/**
 * Where the start stands in a log file's name (after `cursor-wrap-` and `mcp-`/`acp-`), as
 * {@link startStamp} writes it; for a name that is not a log's, whatever stands there.
 */
export function stampOfName(name: string): string {
  const at = name.startsWith("mcp-", 12) || name.startsWith("acp-", 12) ? 16 : 12;
  return name.slice(at, at + 24);
}

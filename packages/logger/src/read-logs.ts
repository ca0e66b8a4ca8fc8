import {
  closeSync,
  createReadStream,
  fstatSync,
  openSync,
  readdirSync,
  readSync,
  statSync,
} from "node:fs";
import { join } from "node:path";
import { type AgentEvent, createLineFramer, parseLine } from "@cursor-wrap/events";
import { parseLogFileName } from "./file-names.js";

/** One line of a session log, as read back. */
export type LogEntry =
  /** A raw agent line: `raw` holds its bytes as logged (after redaction, if any). */
  | { kind: "raw"; recvTs: number; raw: Buffer; eol: string }
  /** A line of agent output that was not a JSON object. */
  | { kind: "text"; recvTs: number; text: string; reason: string; bytes?: Buffer; eol: string }
  /** The start (head) or end (byte count) of a line above the parse cap. */
  | { kind: "oversize"; recvTs: number; head?: string; bytes?: number }
  /** Any other record: decisions, stderr, session start and end. */
  | { kind: "record"; record: Record<string, unknown> }
  /** A line that is not a JSON record (a write cut short by a crash). */
  | { kind: "damaged"; line: string };

const RAW_MARKER = Buffer.from(',"raw":');

function entryOf(line: Buffer, record: Record<string, unknown>): LogEntry {
  const recvTs = typeof record.recv_ts === "number" ? record.recv_ts : 0;
  const eol = typeof record.eol === "string" ? record.eol : "\n";
  if (record.msg === "raw_event" && "raw" in record) {
    // The raw line was embedded verbatim: take its bytes, not a re-serialisation.
    const start = line.indexOf(RAW_MARKER) + RAW_MARKER.length;
    return { kind: "raw", recvTs, raw: line.subarray(start, line.length - 1), eol };
  }
  if (record.msg === "raw_event" && typeof record.raw_text === "string") {
    const entry: LogEntry = {
      kind: "text",
      recvTs,
      text: record.raw_text,
      reason: String(record.reason ?? ""),
      eol,
    };
    if (typeof record.raw_base64 === "string")
      entry.bytes = Buffer.from(record.raw_base64, "base64");
    return entry;
  }
  if (record.oversize === true) {
    return record.msg === "raw_event_end"
      ? { kind: "oversize", recvTs, bytes: Number(record.bytes) }
      : { kind: "oversize", recvTs, head: String(record.raw_head ?? "") };
  }
  return { kind: "record", record };
}

/**
 * The agent line a `raw` or `text` entry holds, parsed again as it was when it arrived (with
 * its line ending, received at `recvTs`); undefined for every other entry.
 */
export function logEntryEvent(entry: LogEntry): AgentEvent | undefined {
  if (entry.kind !== "raw" && entry.kind !== "text") return undefined;
  const line = entry.kind === "raw" ? entry.raw : (entry.bytes ?? Buffer.from(entry.text, "utf8"));
  return parseLine(Buffer.concat([line, Buffer.from(entry.eol, "latin1")]), {
    mono: entry.recvTs,
    epoch: entry.recvTs,
  });
}

/** Read a session log back, record by record, in order. */
export async function* readSessionLog(path: string): AsyncGenerator<LogEntry> {
  const framer = createLineFramer({ parseCap: Number.MAX_SAFE_INTEGER });
  const toEntries = (events: ReturnType<typeof framer.push>): LogEntry[] =>
    events.map((event) =>
      event.kind === "json"
        ? entryOf(event.line, event.data)
        : { kind: "damaged", line: event.line.toString("utf8") },
    );
  for await (const chunk of createReadStream(path)) yield* toEntries(framer.push(chunk as Buffer));
  yield* toEntries(framer.end());
}

/** What `cursor-wrap logs` shows of one session log. */
export interface SessionSummary {
  path: string;
  startedAt: number;
  sessionId: string;
  flagged: boolean;
  incomplete: boolean;
  /** From the final record; `unfinished` when the wrapper never wrote one (crash, still running). */
  outcome: string;
  turns?: number;
  durationMs?: number;
  exitCode?: number;
  sizeBytes: number;
}

function readTail(path: string, bytes: number): string {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, bytes);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer.toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** The session logs in `dir`, newest first, summarised from their names and final records. */
export function listSessions(dir: string): SessionSummary[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const sessions: SessionSummary[] = [];
  for (const name of names) {
    const parsed = parseLogFileName(name);
    if (!parsed) continue;
    const path = join(dir, name);
    const summary: SessionSummary = {
      path,
      startedAt: parsed.startedAt,
      sessionId: parsed.sessionId,
      flagged: parsed.tags.includes("flagged"),
      incomplete: parsed.tags.includes("incomplete"),
      outcome: "unfinished",
      sizeBytes: 0,
    };
    try {
      summary.sizeBytes = statSync(path).size;
      const lines = readTail(path, 256 * 1024).split("\n");
      const endLine = lines.reverse().find((line) => line.includes('"msg":"session_end"'));
      if (endLine) {
        const end = JSON.parse(endLine) as Record<string, unknown>;
        if (typeof end.outcome === "string") summary.outcome = end.outcome;
        if (typeof end.turns === "number") summary.turns = end.turns;
        if (typeof end.duration_ms === "number") summary.durationMs = end.duration_ms;
        if (typeof end.exit_code === "number") summary.exitCode = end.exit_code;
        if (typeof end.session_id === "string" && summary.sessionId.startsWith("unknown")) {
          summary.sessionId = end.session_id;
        }
      }
    } catch {
      // unreadable or cut short: listed with what its name says
    }
    sessions.push(summary);
  }
  return sessions.sort((a, b) => b.startedAt - a.startedAt);
}

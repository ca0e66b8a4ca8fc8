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
import { createLineFramer } from "@cursor-wrap/events";
import { parseLogFileName } from "./file-names.js";
import { decodeLogRecord, type LogEntry } from "./raw-record.js";
import type { SessionEnd } from "./session-log.js";

/**
 * Longest record read back whole. The writer embeds agent lines up to the run's parse cap
 * (which has no upper bound), and a string cannot hold more than about 512 MiB: a longer
 * record comes back as damaged, its head and size, read in pieces.
 */
const READ_CAP = 256 * 1024 * 1024;

/** Whether a line of JSON is one of cursor-wrap's records (pino's numeric level and a message). */
export const isLogRecord = (data: Record<string, unknown>): boolean =>
  typeof data.level === "number" && typeof data.msg === "string";

/**
 * Read a session log back, record by record, in order; a file of agent output (a capture)
 * reads back as its lines, `raw` entries. `maxRecordBytes`: longer records come
 * back as damaged (default 256 MiB).
 */
export async function* readSessionLog(
  path: string,
  options: { maxRecordBytes?: number } = {},
): AsyncGenerator<LogEntry> {
  const framer = createLineFramer({ parseCap: options.maxRecordBytes ?? READ_CAP });
  let head = "";
  const toEntries = (events: ReturnType<typeof framer.push>): LogEntry[] => {
    const entries: LogEntry[] = [];
    for (const event of events) {
      if (event.kind === "oversize") {
        if (event.first) head = event.line.subarray(0, 200).toString("utf8");
        if (event.final) {
          entries.push({
            kind: "damaged",
            line: `${head}… (${event.totalBytes} bytes: too long to read back)`,
            truncated: event.eol === "",
          });
        }
        continue;
      }
      entries.push(
        event.kind !== "json"
          ? { kind: "damaged", line: event.line.toString("utf8"), truncated: event.eol === "" }
          : isLogRecord(event.data)
            ? decodeLogRecord(event.line, event.data)
            : // Not one of cursor-wrap's records (a numeric level, a message): an agent's line,
              // as a capture of its output holds them.
              { kind: "raw", recvTs: 0, raw: event.line, eol: event.eol },
      );
    }
    return entries;
  };
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
  /** The last record was cut short (the writer was killed in the middle of writing it). */
  truncated: boolean;
  turns?: number;
  durationMs?: number;
  exitCode?: number;
  /** The agent's version at the session's last turn, when it was known. */
  agentVersion?: string;
  sizeBytes: number;
  /** `acp`: the log of an ACP proxy (`cursor-wrap acp`) rather than of a cursor-wrap run. */
  kind?: "acp";
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

/** The session id of a log named before its session announced one. */
const NO_ID = "unknown";

/**
 * The session logs in `dir` (cursor-wrap runs and ACP proxies; MCP proxies are listed by
 * {@link listMcpLogs}), newest first, summarised from their names and final records.
 * `idPrefix`: only the sessions whose id starts with it (a log named with another session's id
 * is left out without being read; one whose name has no id yet is read, for its last record
 * may give it).
 */
export function listSessions(dir: string, options: { idPrefix?: string } = {}): SessionSummary[] {
  const { idPrefix } = options;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const sessions: SessionSummary[] = [];
  for (const name of names) {
    const parsed = parseLogFileName(name);
    if (!parsed || parsed.kind === "mcp") continue;
    const unnamed = parsed.sessionId.startsWith(NO_ID);
    if (idPrefix !== undefined && !unnamed && !parsed.sessionId.startsWith(idPrefix)) continue;
    const path = join(dir, name);
    const summary: SessionSummary = {
      path,
      startedAt: parsed.startedAt,
      sessionId: parsed.sessionId,
      flagged: parsed.tags.includes("flagged"),
      incomplete: parsed.tags.includes("incomplete"),
      outcome: "unfinished",
      truncated: false,
      sizeBytes: 0,
    };
    if (parsed.kind === "acp") summary.kind = "acp";
    try {
      const stats = statSync(path);
      // A FIFO or device named like a log would block the read (and this process's signals).
      if (!stats.isFile()) continue;
      summary.sizeBytes = stats.size;
      const tail = readTail(path, 256 * 1024);
      summary.truncated = tail.length > 0 && !tail.endsWith("\n");
      const lines = tail.split("\n");
      const endLine = lines.reverse().find((line) => line.includes('"msg":"session_end"'));
      if (endLine) {
        // Read by the names the writer uses: renaming a field of SessionEnd breaks this code.
        const end = JSON.parse(endLine) as { [Field in keyof SessionEnd]?: unknown };
        if (typeof end.outcome === "string") summary.outcome = end.outcome;
        if (typeof end.turns === "number") summary.turns = end.turns;
        if (typeof end.duration_ms === "number") summary.durationMs = end.duration_ms;
        if (typeof end.exit_code === "number") summary.exitCode = end.exit_code;
        if (typeof end.agent_version === "string") summary.agentVersion = end.agent_version;
        if (typeof end.session_id === "string" && unnamed) {
          summary.sessionId = end.session_id;
        }
      }
    } catch {
      // unreadable or cut short: listed with what its name says
    }
    if (idPrefix === undefined || summary.sessionId.startsWith(idPrefix)) sessions.push(summary);
  }
  return sessions.sort((a, b) => b.startedAt - a.startedAt);
}

/** One MCP proxy's log. */
export interface McpLogSummary {
  path: string;
  startedAt: number;
  /** The server id it was started with. */
  serverId: string;
  /** The token of the cursor-wrap run it ran under (from its first record), if any. */
  agentToken?: string;
}

/** The MCP proxies' logs in `dir`, oldest first, with the run each belongs to. */
export function listMcpLogs(dir: string): McpLogSummary[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const logs: McpLogSummary[] = [];
  for (const name of names) {
    const parsed = parseLogFileName(name);
    if (parsed?.kind !== "mcp") continue;
    const path = join(dir, name);
    const summary: McpLogSummary = {
      path,
      startedAt: parsed.startedAt,
      serverId: parsed.sessionId,
    };
    try {
      // A FIFO or device named like a log would block the read (and this process's signals).
      if (!statSync(path).isFile()) continue;
      const fd = openSync(path, "r");
      try {
        const buffer = Buffer.alloc(8_192);
        const read = readSync(fd, buffer, 0, buffer.length, 0);
        for (const line of buffer.subarray(0, read).toString("utf8").split("\n").slice(0, 3)) {
          const record = JSON.parse(line) as { agent_token?: unknown };
          if (typeof record.agent_token === "string") {
            summary.agentToken = record.agent_token;
            break;
          }
        }
      } finally {
        closeSync(fd);
      }
    } catch {
      // unreadable or cut short: listed without its run
    }
    logs.push(summary);
  }
  return logs.sort((a, b) => a.startedAt - b.startedAt);
}

import { existsSync } from "node:fs";
import { basename } from "node:path";
import { parseLine, sessionIdOf, terminalSafe } from "@cursor-wrap/events";
import { createFormatter } from "@cursor-wrap/format";
import {
  listSessions,
  logEntryEvent,
  parseLogFileName,
  readSessionLog,
  renderConsoleLine,
  type SessionSummary,
} from "@cursor-wrap/logger";
import { formatDuration, type Reason } from "@cursor-wrap/monitor";
import { RECORDS, type RecordFields, type RecordName, verdictOf } from "../log-records.js";
import { readableFile, UsageError } from "../usage-error.js";
import { acpTimelineLine } from "./acp-timeline.js";
import { mcpTimeline, mcpTimelineLine } from "./mcp-timeline.js";
import type { RunIo } from "./run.js";

/** Options of `cursor-wrap logs` and `cursor-wrap logs show`. */
export interface LogsOptions {
  /** `[]` to list; `["show", <session|file>]` to render one. */
  args: readonly string[];
  /** Only flagged sessions. */
  flagged: boolean;
  /** JSON instead of a table. */
  json: boolean;
  logDir: string;
}

function localTime(epochMs: number): string {
  const date = new Date(epochMs);
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

function table(sessions: SessionSummary[]): string {
  const rows = [
    ["START", "SESSION", "OUTCOME", "TURNS", "DURATION", "AGENT", "FILE"],
    ...sessions.map((session) => [
      localTime(session.startedAt),
      session.kind === "acp" ? `${session.sessionId} (acp)` : session.sessionId,
      `${session.outcome}${session.flagged ? " (flagged)" : ""}${session.incomplete ? " (incomplete)" : ""}${session.truncated ? " (truncated record)" : ""}`,
      session.turns === undefined ? "-" : String(session.turns),
      session.durationMs === undefined ? "-" : formatDuration(session.durationMs),
      session.agentVersion ?? "-",
      basename(session.path),
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** Find a log by path, or by (a prefix of) its session id: the newest match. */
function findLog(dir: string, target: string): string {
  if (existsSync(target)) return readableFile(target, "the log");
  const match = listSessions(dir).find(
    (session) => session.sessionId.startsWith(target) || basename(session.path) === target,
  );
  if (!match) throw new UsageError(`no log for ${JSON.stringify(target)} in ${dir}`);
  return match.path;
}

/** The table's name for a record, if `record.msg` is one. */
function recordName(record: Record<string, unknown>): RecordName | undefined {
  const name = record.msg;
  return typeof name === "string" && Object.hasOwn(RECORDS, name)
    ? (name as RecordName)
    : undefined;
}

/** Logs written before retry records carried their reason. */
const UNRECORDED_REASON: Reason = {
  kind: "none",
  idleMs: 0,
  openCallCount: 0,
  openCalls: [],
  message: "reason not recorded",
};

/** Render an ACP proxy's log: the traffic, the turns and the watchdog's decisions, a line each. */
async function showAcpLog(path: string, io: RunIo): Promise<void> {
  for await (const entry of readSessionLog(path)) {
    if (entry.kind === "damaged") {
      io.stdout.write(
        `[${entry.truncated ? "truncated" : "damaged"} record: ${terminalSafe(entry.line.slice(0, 80))}]\n`,
      );
      continue;
    }
    if (entry.kind !== "record") continue;
    const line = acpTimelineLine(entry.record);
    if (line !== undefined) io.stdout.write(`${line}\n`);
  }
}

/** Render a session log with the text formatter: the agent's output and the wrapper's decisions. */
async function showLog(path: string, io: RunIo): Promise<void> {
  if (parseLogFileName(path)?.kind === "acp") {
    await showAcpLog(path, io);
    return;
  }
  const formatter = createFormatter("text", io.stdout, {
    tty: false,
    color: io.stdout.isTTY === true,
  });
  let sessionId: string | undefined;
  let turn = 0;
  // The MCP proxies that ran under this session, interleaved by time.
  const mcp = await mcpTimeline(path);
  let shownMcp = 0;
  const showMcpUntil = (time: number): void => {
    while (shownMcp < mcp.length && mcp[shownMcp]!.time <= time) {
      const line = mcpTimelineLine(mcp[shownMcp]!);
      shownMcp += 1;
      if (line === undefined) continue;
      formatter.flush();
      formatter.interrupt();
      io.stdout.write(`${line}\n`);
    }
  };
  for await (const entry of readSessionLog(path)) {
    if (mcp.length > shownMcp) {
      const time =
        entry.kind === "raw" || entry.kind === "text" || entry.kind === "oversize"
          ? entry.recvTs
          : entry.kind === "record"
            ? Number(entry.record.time)
            : Number.NaN;
      if (Number.isFinite(time)) showMcpUntil(time);
    }
    switch (entry.kind) {
      case "raw":
      case "text": {
        const event = logEntryEvent(entry)!;
        sessionId = sessionIdOf(event) ?? sessionId;
        formatter.write(event);
        break;
      }
      case "oversize":
        if (entry.bytes !== undefined)
          formatter.write(parseLine(`[a line of ${entry.bytes} bytes, logged in part]`));
        break;
      case "damaged":
        io.stdout.write(
          `[${entry.truncated ? "truncated" : "damaged"} record: ${terminalSafe(entry.line.slice(0, 80))}]\n`,
        );
        break;
      case "record": {
        const { record } = entry;
        const name = recordName(record);
        switch (name ? RECORDS[name].show : undefined) {
          case "turn-start":
            turn += 1;
            io.stdout.write(`── turn ${turn} ${"─".repeat(40)}\n`);
            break;
          case "verdict": {
            const verdict = verdictOf(String(record.msg));
            const fields = record as Partial<RecordFields["hang_detected"]>;
            if (verdict && fields.reason) {
              formatter.wrapper({
                kind: verdict,
                reason: fields.reason,
                terminal: verdict !== "linger",
                ...(sessionId ? { sessionId } : {}),
              });
            }
            break;
          }
          case "retry": {
            const fields = record as Partial<RecordFields["retry"]>;
            formatter.wrapper({
              kind: "retry",
              attempt: Number(fields.attempt),
              maxAttempts: Number(fields.max_attempts),
              prompt: String(fields.prompt),
              reason: fields.reason ?? UNRECORDED_REASON,
            });
            break;
          }
          case "turn-end": {
            const fields = record as Partial<RecordFields["turn_end"]>;
            formatter.endTurn({
              durationMs: Number(fields.duration_ms ?? 0),
              toolCalls: Number(fields.tool_calls ?? 0),
              outcome: String(fields.outcome),
            });
            break;
          }
          default:
            if (typeof record.level === "number" && record.level >= 40) {
              io.stdout.write(
                renderConsoleLine(
                  record.level,
                  String(record.msg),
                  record,
                  io.stdout.isTTY === true,
                ),
              );
            }
        }
      }
    }
  }
  showMcpUntil(Number.POSITIVE_INFINITY);
  formatter.close();
}

/** `cursor-wrap logs [--flagged] [--json]` and `cursor-wrap logs show <session|file>` (R-CLI6). */
export async function logsCommand(options: LogsOptions, io: RunIo): Promise<number> {
  const { args, logDir: dir } = options;
  if (args[0] === "show") {
    if (!args[1]) throw new UsageError("logs show needs a session id or a log file");
    await showLog(findLog(dir, args[1]), io);
    return 0;
  }
  if (args.length > 0)
    throw new UsageError(
      `unknown logs command ${JSON.stringify(args[0])} (use: logs, logs show <session|file>)`,
    );
  const sessions = listSessions(dir).filter((session) => !options.flagged || session.flagged);
  if (options.json) {
    io.stdout.write(`${JSON.stringify(sessions, null, 2)}\n`);
  } else if (sessions.length === 0) {
    io.stdout.write(`no ${options.flagged ? "flagged " : ""}session logs in ${dir}\n`);
  } else {
    io.stdout.write(`${terminalSafe(table(sessions))}\n`);
  }
  return 0;
}

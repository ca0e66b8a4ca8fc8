import { existsSync } from "node:fs";
import { basename } from "node:path";
import { parseLine, sessionIdOf } from "@cursor-wrap/events";
import { createFormatter } from "@cursor-wrap/format";
import {
  listSessions,
  logEntryEvent,
  readSessionLog,
  renderConsoleLine,
  type SessionSummary,
} from "@cursor-wrap/logger";
import type { Reason } from "@cursor-wrap/monitor";
import { formatDuration } from "@cursor-wrap/monitor";
import { defaultLogDir, envName } from "../options.js";
import type { RunIo } from "../run.js";
import { UsageError } from "../usage-error.js";

/** Options of `cursor-wrap logs`. */
export interface LogsFlags {
  flagged?: boolean;
  json?: boolean;
  logDir?: string;
}

function logDirOf(flags: LogsFlags, env: NodeJS.ProcessEnv): string {
  return flags.logDir ?? env[envName("log-dir")] ?? defaultLogDir();
}

function localTime(epochMs: number): string {
  const date = new Date(epochMs);
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

function table(sessions: SessionSummary[]): string {
  const rows = [
    ["START", "SESSION", "OUTCOME", "TURNS", "DURATION", "FILE"],
    ...sessions.map((session) => [
      localTime(session.startedAt),
      session.sessionId,
      `${session.outcome}${session.flagged ? " (flagged)" : ""}${session.incomplete ? " (incomplete)" : ""}`,
      session.turns === undefined ? "-" : String(session.turns),
      session.durationMs === undefined ? "-" : formatDuration(session.durationMs),
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
  if (existsSync(target)) return target;
  const match = listSessions(dir).find(
    (session) => session.sessionId.startsWith(target) || basename(session.path) === target,
  );
  if (!match) throw new UsageError(`no log for ${JSON.stringify(target)} in ${dir}`);
  return match.path;
}

const VERDICTS: Record<string, "hang" | "linger" | "budget"> = {
  hang_detected: "hang",
  linger_detected: "linger",
  budget_exceeded: "budget",
};

/** Render a session log with the text formatter: the agent's output and the wrapper's decisions. */
async function showLog(path: string, io: RunIo): Promise<void> {
  const formatter = createFormatter("text", io.stdout, {
    tty: false,
    color: io.stdout.isTTY === true,
  });
  let sessionId: string | undefined;
  let turn = 0;
  for await (const entry of readSessionLog(path)) {
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
        io.stdout.write(`[damaged log line: ${entry.line.slice(0, 80)}]\n`);
        break;
      case "record": {
        const { record } = entry;
        const message = String(record.msg);
        const verdict = VERDICTS[message];
        if (message === "agent_spawn") {
          turn += 1;
          io.stdout.write(`── turn ${turn} ${"─".repeat(40)}\n`);
        } else if (verdict && record.reason) {
          formatter.wrapper({
            kind: verdict,
            reason: record.reason as Reason,
            terminal: verdict !== "linger",
            ...(sessionId ? { sessionId } : {}),
          });
        } else if (message === "retry") {
          formatter.wrapper({
            kind: "retry",
            attempt: Number(record.attempt),
            maxAttempts: Number(record.max_attempts),
            prompt: String(record.prompt),
            reason: { kind: "none", idleMs: 0, openCallCount: 0, openCalls: [], message: "" },
          });
        } else if (message === "turn_end") {
          formatter.endTurn({
            durationMs: Number(record.duration_ms ?? 0),
            toolCalls: Number(record.tool_calls ?? 0),
            outcome: String(record.outcome),
          });
        } else if (typeof record.level === "number" && record.level >= 40) {
          io.stdout.write(
            renderConsoleLine(record.level, message, record, io.stdout.isTTY === true),
          );
        }
      }
    }
  }
  formatter.close();
}

/** `cursor-wrap logs [--flagged] [--json]` and `cursor-wrap logs show <session|file>` (R-CLI6). */
export async function logsCommand(
  args: string[],
  flags: LogsFlags,
  io: RunIo,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const dir = logDirOf(flags, env);
  if (args[0] === "show") {
    if (!args[1]) throw new UsageError("logs show needs a session id or a log file");
    await showLog(findLog(dir, args[1]), io);
    return 0;
  }
  if (args.length > 0)
    throw new UsageError(
      `unknown logs command ${JSON.stringify(args[0])} (use: logs, logs show <session|file>)`,
    );
  const sessions = listSessions(dir).filter((session) => !flags.flagged || session.flagged);
  if (flags.json) {
    io.stdout.write(`${JSON.stringify(sessions, null, 2)}\n`);
  } else if (sessions.length === 0) {
    io.stdout.write(`no ${flags.flagged ? "flagged " : ""}session logs in ${dir}\n`);
  } else {
    io.stdout.write(`${table(sessions)}\n`);
  }
  return 0;
}
